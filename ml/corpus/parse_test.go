package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taglens/taglens/ml/shareddata"
)

func docs(pairs ...string) []Document {
	// pairs: "id|tag,tag"
	var out []Document
	for _, p := range pairs {
		id, tags, _ := strings.Cut(p, "|")
		out = append(out, Document{ID: id, Tags: strings.Split(tags, ",")})
	}
	return out
}

func TestParseFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format Format // "" = detect
		in     string
		want   []Document
		detect Format
	}{
		{"tsv", FormatTSV, "a\trock\tguitar\nb\tjazz\n", docs("a|rock,guitar", "b|jazz"), FormatTSV},
		{"tsv crlf bom spaces", "", "\ufeffa\t rock \tno vocals\r\n\r\nb\tjazz\trock\tjazz\r\n", docs("a|rock,no vocals", "b|jazz,rock"), FormatTSV},
		{"tsv empty doc dropped", "", "a\trock\nb\t \t\nc\tpop\n", docs("a|rock", "c|pop"), FormatTSV},
		{"lines", "", "rock, guitar\n\njazz,,sax\n", docs("1|rock,guitar", "3|jazz,sax"), FormatCommaLines},
		{"lines single tags", "", "rock\njazz\n", docs("1|rock", "2|jazz"), FormatCommaLines},
		{"csv semicolon", "", "id,tags\nx1,rock;guitar\nx2,\"jazz;big band, swing\"\n", []Document{{"x1", []string{"rock", "guitar"}}, {"x2", []string{"jazz", "big band, swing"}}}, FormatCSV},
		{"csv pipe and comma", "", "Labels,Name,year\n\"a,b\",n1,1999\nc|d,n2,2000\n", docs("n1|a,b", "n2|c,d"), FormatCSV},
		{"csv two columns", "", "song,tags\ns1,a\ns2,b;c\n", docs("s1|a", "s2|b,c"), FormatCSV},
		{"jsonl", "", `{"id":"a","tags":["rock","guitar","rock"]}` + "\n" + `{"id":7,"tags":["<b>x</b>"],"other":1}` + "\n", docs("a|rock,guitar", "7|<b>x</b>"), FormatJSONL},
		{"jsonl missing id", "", `{"tags":["a"]}` + "\n" + `{"tags":["b"]}` + "\n", docs("1|a", "2|b"), FormatJSONL},
		{"matrix with id", "", "id,rock,jazz,no vocals\nd1,1,0,1\nd2,0,1,0\n", docs("d1|rock,no vocals", "d2|jazz"), FormatLabelMatrix},
		{"matrix empty id header", "", ",rock,jazz\nd1,1,0\nd2,0,1\n", docs("d1|rock", "d2|jazz"), FormatLabelMatrix},
		{"matrix no id", "", "rock,jazz\n1,1\n0,1\n", docs("1|rock,jazz", "2|jazz"), FormatLabelMatrix},
		{"matrix id detected by value", "", "track,rock,jazz\nt1,1,0\nt2,0,1\n", docs("t1|rock", "t2|jazz"), FormatLabelMatrix},
		{"arff dense", "", "% mulan\n@relation 'CAL: test'\n@attribute f1 numeric\n@attribute 'Genre - Rock' {0,1}\n@attribute jazz {0,1}\n@attribute mood {happy,sad}\n@data\n0.5,1,0,happy\n-1.2e3,1,1,'sad'\n",
			docs("1|Genre - Rock", "2|Genre - Rock,jazz"), FormatARFF},
		{"arff sparse", "", "@RELATION r\n@ATTRIBUTE f1 REAL\n@ATTRIBUTE a {0,1}\n@ATTRIBUTE b {0,1}\n@ATTRIBUTE c {0,1}\n@DATA\n{0 0.3,2 1}\n{1 1,3 1}\n{0 2}\n{3 1}\n",
			docs("1|b", "2|a,c", "4|c"), FormatARFF},
		{"arff sparse with id", "", "@relation r\n@attribute id string\n@attribute 'x, y' {0,1}\n@attribute z {0,1}\n@data\n{0 'doc, one',1 1}\n{0 d2,1 1,2 1}\n",
			[]Document{{"doc, one", []string{"x, y"}}, {"d2", []string{"x, y", "z"}}}, FormatARFF},
		{"arff meka -C", "", "@relation 'Music: -C 2'\n@attribute l1 numeric\n@attribute l2 numeric\n@attribute f numeric\n@data\n1,0,0.4\n1,1,9\n", docs("1|l1", "2|l1,l2"), FormatARFF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in), ParseOptions{Format: tc.format})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(c.Docs, tc.want) {
				t.Errorf("got %q, want %q", c.Docs, tc.want)
			}
			if c.Format != tc.detect {
				t.Errorf("format: got %q, want %q", c.Format, tc.detect)
			}
			if f, err := Detect([]byte(tc.in)); err != nil || f != tc.detect {
				t.Errorf("Detect: got %q, %v, want %q", f, err, tc.detect)
			}
		})
	}
}

func TestParseDropped(t *testing.T) {
	c, err := Parse(strings.NewReader("a\tx\nb\nc\ty\nd\t\t\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Dropped != 2 || len(c.Warnings) != 2 {
		t.Fatalf("got %d dropped, %d warnings, want 2, 2", c.Dropped, len(c.Warnings))
	}
	if got, want := c.Warnings[1].Error(), `line 4: document "d" has no tags (dropped)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestARFFExplicitLabels(t *testing.T) {
	in := "@relation r\n@attribute a {0,1}\n@attribute b numeric\n@attribute c {0,1}\n@data\n1,1,0\n0,1,1\n"
	c, err := Parse(strings.NewReader(in), ParseOptions{Labels: []string{"b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := docs("1|b", "2|b,c"); !reflect.DeepEqual(c.Docs, want) {
		t.Errorf("got %q, want %q", c.Docs, want)
	}
	if _, err := Parse(strings.NewReader(in), ParseOptions{Labels: []string{"zz"}}); err == nil {
		t.Error("unknown label attribute: got no error")
	}
}

func TestParseErrors(t *testing.T) {
	long := "a\t" + strings.Repeat("x", 100) + "\n"
	for _, tc := range []struct {
		name   string
		format Format
		in     string
		opt    ParseOptions
		line   int
		reason string // substring of the error
	}{
		{"empty", "", "", ParseOptions{}, 0, "empty corpus"},
		{"blank only", "", "\n \n\t\n", ParseOptions{}, 0, "empty corpus"},
		{"all empty docs", FormatTSV, "a\nb\n", ParseOptions{}, 0, "none of its 2 documents"},
		{"one doc", "", "a\trock\n", ParseOptions{}, 0, "only 1 document"},
		{"not utf8", "", "a\trock\nb\tro\xffck\n", ParseOptions{}, 2, "not UTF-8 at byte 11"},
		{"truncated utf8 at eof", "", "a\trock\nb\tro\xc3", ParseOptions{}, 2, "not UTF-8 at byte 11"},
		{"nul", FormatTSV, "a\trock\nb\tx\x00y\n", ParseOptions{}, 2, "NUL byte"},
		{"nul detect", "", "a\trock\nb\tx\x00y\n", ParseOptions{}, 2, "NUL byte"},
		{"long line", FormatTSV, "a\tb\n" + long, ParseOptions{MaxLineBytes: 50}, 2, "longer than 50 bytes"},
		{"too many tags leave one document", FormatTSV, "a\tb\nc\t1\t2\t3\t2\n", ParseOptions{MaxTagsPerDoc: 2}, 0,
			"only 1 document; at least 2 are needed; 1 document with more than 2 tags skipped (line 2)"},
		{"every document over the tag cap", FormatTSV, "a\t1\t2\t3\nb\nc\t3\t4\t5\n", ParseOptions{MaxTagsPerDoc: 2}, 0,
			"empty corpus: no document kept (1 without tags dropped; 2 documents with more than 2 tags skipped (lines 1, 3))"},
		{"too many docs", FormatTSV, "a\tb\nc\td\ne\tf\n", ParseOptions{MaxDocs: 2}, 3, "more than 2 documents"},
		{"too many docs, dropped ones count", FormatTSV, "a\tb\nc\ne\tf\n", ParseOptions{MaxDocs: 2}, 3, "more than 2 documents"},
		{"over the memory budget", FormatTSV, "a\tb\tc\nd\te\nf\tg\n", ParseOptions{MaxMemory: 786_780},
			3, "the corpus would need more than 768.3 KiB of memory (the limit of one parse): 3 documents, 4 tag uses and 4 distinct tags so far"},
		{"duplicate id", FormatTSV, "a\tb\nc\td\na\tf\n", ParseOptions{}, 3, `duplicate document id "a" (first on line 1)`},
		{"empty id", FormatTSV, "a\tb\n \td\n", ParseOptions{}, 2, "empty document id"},
		{"jsonl syntax", FormatJSONL, "{\"id\":1,\"tags\":[\"a\"]}\n{\"id\":2,\"tags\":[\"a\"\n", ParseOptions{}, 2, "invalid JSON"},
		{"jsonl no tags", FormatJSONL, "{\"id\":1,\"tags\":[\"a\"]}\n{\"id\":2}\n", ParseOptions{}, 2, `no "tags"`},
		{"jsonl bad id", FormatJSONL, "{\"id\":[1],\"tags\":[\"a\"]}\n", ParseOptions{}, 1, "id must be"},
		{"jsonl nul escape", FormatJSONL, "{\"id\":1,\"tags\":[\"a\\u0000\"]}\n", ParseOptions{}, 1, "NUL"},
		{"jsonl tab in a tag", FormatJSONL, "{\"id\":1,\"tags\":[\"a\"]}\n{\"id\":2,\"tags\":[\"b\\tc\"]}\n", ParseOptions{}, 2,
			`tag "b\tc" holds the control character U+0009: tags may not hold control or bidirectional formatting characters`},
		{"jsonl LF in a tag", FormatJSONL, "{\"id\":1,\"tags\":[\"a\\nb\"]}\n", ParseOptions{}, 1, "control character U+000A"},
		{"jsonl CR in a tag", FormatJSONL, "{\"id\":1,\"tags\":[\"a\\rb\"]}\n", ParseOptions{}, 1, "control character U+000D"},
		{"jsonl BEL in a tag", "", "{\"id\":1,\"tags\":[\"ok\",\"a\\u0007b\"]}\n", ParseOptions{}, 1, "control character U+0007"},
		{"jsonl U+202E in a tag leaves one document", FormatJSONL, "{\"id\":1,\"tags\":[\"ok\"]}\n{\"id\":2,\"tags\":[\"a\\u202eb\"]}\n", ParseOptions{}, 0,
			"only 1 document; at least 2 are needed; 1 document with a bidirectional formatting character in a tag skipped (line 2)"},
		{"tsv BEL in a tag", "", "a\trock\nb\tro\ack\n", ParseOptions{}, 2, "control character U+0007"},
		{"tsv CR inside a tag", FormatTSV, "a\trock\nb\tro\rck\tjazz\n", ParseOptions{}, 2, "control character U+000D"},
		{"lines U+2066 in every document", "", "rock,\u2066jazz\npop,\u2066folk\n", ParseOptions{}, 0,
			"empty corpus: no document kept (0 without tags dropped; 2 documents with a bidirectional formatting character in a tag skipped"},
		{"lines DEL in a tag", "", "rock,jazz\npop,fo\x7flk\n", ParseOptions{}, 2, "control character U+007F"},
		{"csv C1 in a tag", "", "id,tags\n1,rock\n2,ja\u0085zz\n", ParseOptions{}, 3, "control character U+0085"},
		{"matrix header U+202B", FormatLabelMatrix, "id,a,\u202bb\nx,1,0\ny,0,1\n", ParseOptions{}, 1, `column 3: tag "\u202bb" holds the bidirectional formatting character U+202B`},
		{"arff label U+2069 skips its documents", FormatARFF, "@relation r\n@attribute 'a\u2069' {0,1}\n@attribute b {0,1}\n@data\n1,0\n0,1\n", ParseOptions{}, 0,
			"1 document with a bidirectional formatting character in a tag skipped (line 5)"},
		{"csv no tags column", FormatCSV, "id,name\n1,x\n", ParseOptions{}, 1, "no tags column"},
		{"csv short record", FormatCSV, "id,x,tags\n1,2,a\n3\n", ParseOptions{}, 3, "need at least 3"},
		{"csv bad quote", FormatCSV, "id,tags\n1,a\n2,\"b\n", ParseOptions{}, 3, "quote"},
		{"matrix bad cell", FormatLabelMatrix, "id,a,b\nx,1,0\ny,1,2\n", ParseOptions{}, 3, `column "b": cell "2"`},
		{"matrix width", FormatLabelMatrix, "id,a,b\nx,1,0\ny,1\n", ParseOptions{}, 3, "row has 2 cells"},
		{"matrix dup tag", FormatLabelMatrix, "id,a,a\nx,1,0\n", ParseOptions{}, 1, `tag "a" names columns 2 and 3`},
		{"arff no data", FormatARFF, "@relation r\n@attribute a {0,1}\n", ParseOptions{}, 0, "no @data"},
		{"arff no labels", FormatARFF, "@relation r\n@attribute a numeric\n@data\n1\n", ParseOptions{}, 3, "no label attributes"},
		{"arff width", FormatARFF, "@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n@data\n1,0\n1\n", ParseOptions{}, 6, "row has 1 values"},
		{"arff bad label", FormatARFF, "@relation r\n@attribute a {0,1}\n@data\n1\n2\n", ParseOptions{}, 5, `label "a": value "2"`},
		{"arff bad sparse", FormatARFF, "@relation r\n@attribute a {0,1}\n@data\n{0 1}\n{7 1}\n", ParseOptions{}, 5, "bad sparse entry"},
		{"arff unknown type", FormatARFF, "@relation r\n@attribute a relational\n@data\n", ParseOptions{}, 2, "unsupported type"},
		{"arff header junk", FormatARFF, "@relation r\nhello\n", ParseOptions{}, 2, `unexpected "hello"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Format = tc.format
			_, err := Parse(strings.NewReader(tc.in), tc.opt)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want a *ParseError", err, err)
			}
			if pe.Line != tc.line || !strings.Contains(pe.Reason, tc.reason) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.Line, pe.Reason, tc.line, tc.reason)
			}
		})
	}
}

// TestGuardChunkBoundaries feeds input one byte at a time so that multi-byte runes,
// line counts and offsets straddle read boundaries.
func TestGuardChunkBoundaries(t *testing.T) {
	in := "dé\tçava\tnaïve\nx\t日本\t音楽\n" + "y\tok\xe6\x97\n"
	_, err := Parse(io.MultiReader(oneByteReaders(in)...), ParseOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Offset != int64(len(in)-3) {
		t.Fatalf("got %v, want line 3 at byte %d", err, len(in)-3)
	}
	good := in[:len(in)-len("y\tok\xe6\x97\n")]
	c, err := Parse(io.MultiReader(oneByteReaders(good)...), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := docs("dé|çava,naïve", "x|日本,音楽"); !reflect.DeepEqual(c.Docs, want) {
		t.Errorf("got %q, want %q", c.Docs, want)
	}
}

func oneByteReaders(s string) []io.Reader {
	rs := make([]io.Reader, len(s))
	for i := 0; i < len(s); i++ {
		rs[i] = strings.NewReader(s[i : i+1])
	}
	return rs
}

// TestGuardLargeInput checks error positions past the first buffer refill.
func TestGuardLargeInput(t *testing.T) {
	var sb strings.Builder
	n := 20000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "d%d\ttag%d\tcommon\n", i, i%50)
	}
	off := sb.Len()
	sb.WriteString("bad\t\xff\n")
	_, err := Parse(strings.NewReader(sb.String()), ParseOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != n+1 || pe.Offset != int64(off+4) {
		t.Fatalf("got %v, want line %d at byte %d", err, n+1, off+4)
	}
}

// roundTrip writes c in f and parses it back, returning the documents read.
func roundTrip(t *testing.T, c *Corpus, f Format) (*Corpus, error) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c, f); err != nil {
		return nil, err
	}
	c2, err := Parse(&buf, ParseOptions{Format: f})
	if err != nil {
		t.Fatalf("parse of written %s: %v\n%s", f, err, buf.String())
	}
	return c2, nil
}

// sameDocs compares documents as each format can preserve them (see Write).
func sameDocs(f Format, a, b []Document) error {
	if len(a) != len(b) {
		return fmt.Errorf("got %d documents, want %d", len(b), len(a))
	}
	for i := range a {
		x, y := a[i], b[i]
		if f != FormatCommaLines && x.ID != y.ID {
			return fmt.Errorf("doc %d: got id %q, want %q", i, y.ID, x.ID)
		}
		xt, yt := x.Tags, y.Tags
		if f == FormatLabelMatrix || f == FormatARFF {
			xt, yt = sortedCopy(xt), sortedCopy(yt)
		}
		if !reflect.DeepEqual(xt, yt) {
			return fmt.Errorf("doc %d: got tags %q, want %q", i, yt, xt)
		}
	}
	return nil
}

func sortedCopy(s []string) []string {
	return NewVocabulary([]Document{{Tags: s}}).Terms()
}

func TestWriteRoundTripAllFormats(t *testing.T) {
	c := &Corpus{Name: "rt", Docs: []Document{
		{ID: "a 1", Tags: []string{"rock", "no vocals", "ça va", "x|y", "q'uote", `d"q`}},
		{ID: "b,2", Tags: []string{"jazz"}},
		{ID: "c", Tags: []string{"a,b"}},
		{ID: "d", Tags: []string{"日本", "id", "tags", "back\\slash"}},
	}}
	for _, f := range []Format{FormatTSV, FormatCommaLines, FormatCSV, FormatJSONL, FormatLabelMatrix, FormatARFF} {
		t.Run(string(f), func(t *testing.T) {
			c2, err := roundTrip(t, c, f)
			if f == FormatCommaLines {
				if !errors.Is(err, ErrNotRepresentable) {
					t.Fatalf("lines with a comma tag: got %v, want ErrNotRepresentable", err)
				}
				c = &Corpus{Docs: c.Docs[:2]}
				c2, err = roundTrip(t, c, f)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := sameDocs(f, c.Docs, c2.Docs); err != nil {
				t.Error(err)
			}
			var buf bytes.Buffer
			Write(&buf, c, f)
			if got, err := Detect(buf.Bytes()); got != f {
				t.Errorf("Detect(Write(%s)): got %q, %v", f, got, err)
			}
		})
	}
	c = &Corpus{Docs: []Document{{ID: "a", Tags: []string{"x\ty"}}, {ID: "b", Tags: []string{"z"}}}}
	if err := Write(io.Discard, c, FormatTSV); !errors.Is(err, ErrNotRepresentable) {
		t.Errorf("tab in a tsv tag: got %v, want ErrNotRepresentable", err)
	}
}

func TestParseFormatName(t *testing.T) {
	for in, want := range map[string]Format{"": "", "TSV": FormatTSV, "tab": FormatTSV, "json": FormatJSONL, "mulan": FormatARFF, "matrix": FormatLabelMatrix} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q): got %q, %v, want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml): got no error")
	}
}

// TestSharedData parses the real corpora of ../shared/data; the expected counts are
// those stated in each corpus's SOURCE.md (and ../shared/data/README.md).
func TestSharedData(t *testing.T) {
	for _, tc := range []struct {
		corpus     string
		docs, tags int
		mean       float64 // mean tags/doc, 2 decimals in SOURCE.md
	}{
		{"mtg-jamendo", 55525, 183, 4.15},
		{"cal500", 502, 174, 26.04},
		{"corel5k", 5000, 374, 3.52},
		{"magnatagatune-top50", 5861, 50, 3.28},
		{"msd-lastfm-top50", 11774, 50, 1.75},
		{"lastfm-hetrec", 12523, 9743, 8.76},
	} {
		t.Run(tc.corpus, func(t *testing.T) {
			path := shareddata.File(t, tc.corpus, "docs.tsv")
			c, err := ReadFile(path, ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tc.corpus || c.Format != FormatTSV {
				t.Errorf("got name %q format %q, want %q tsv", c.Name, c.Format, tc.corpus)
			}
			n := 0
			for _, d := range c.Docs {
				n += len(d.Tags)
			}
			mean := float64(n) / float64(len(c.Docs))
			if got := NewVocabulary(c.Docs).Len(); len(c.Docs) != tc.docs || got != tc.tags || math.Abs(mean-tc.mean) > 0.005 {
				t.Errorf("got %d docs, %d tags, %.3f tags/doc, want %d, %d, %.2f", len(c.Docs), got, mean, tc.docs, tc.tags, tc.mean)
			}
			if c.Dropped != 0 {
				t.Errorf("got %d dropped documents, want 0 (SOURCE.md: none empty)", c.Dropped)
			}
		})
	}
}

// BenchmarkParseMTGJamendo reports parsing throughput on the 2.7 MB mtg-jamendo docs.tsv
// (55,525 documents).
func BenchmarkParseMTGJamendo55k(b *testing.B) { benchParse(b, "mtg-jamendo") }

func BenchmarkParseLastfmHetrec12k(b *testing.B) { benchParse(b, "lastfm-hetrec") }

// benchParse parses the docs.tsv of a corpus of the development data, reporting
// MB/s.
func benchParse(b *testing.B, name string) {
	path := shareddata.File(b, name, "docs.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), ParseOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))*float64(b.N)/1e6/b.Elapsed().Seconds(), "MB/s")
}

// TestSharedDataRoundTrip writes each real corpus in every format that can hold it
// and parses it back (slow: skipped under -short).
func TestSharedDataRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: writes every shared corpus in every format")
	}
	for _, name := range []string{"cal500", "corel5k", "magnatagatune-top50", "msd-lastfm-top50", "lastfm-hetrec"} {
		c, err := ReadFile(shareddata.File(t, name, "docs.tsv"), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []Format{FormatCommaLines, FormatCSV, FormatJSONL, FormatLabelMatrix, FormatARFF} {
			if f == FormatLabelMatrix && NewVocabulary(c.Docs).Len() > 1000 {
				continue // a dense 12k × 9.7k matrix is 240 MB; ARFF (sparse) covers it
			}
			t.Run(name+"/"+string(f), func(t *testing.T) {
				c2, err := roundTrip(t, c, f)
				if errors.Is(err, ErrNotRepresentable) && f == FormatCommaLines {
					t.Skipf("tags hold commas: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := sameDocs(f, c.Docs, c2.Docs); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestMulanDenseARFF builds a mulan-style dense ARFF of CAL500 (68 numeric feature
// attributes, then the 174 {0,1} label attributes, as SOURCE.md describes the
// original) with its own writer and checks that parsing recovers docs.tsv's tag sets.
func TestMulanDenseARFF(t *testing.T) {
	c, err := ReadFile(shareddata.File(t, "cal500", "docs.tsv"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels := NewVocabulary(c.Docs).Terms()
	var sb strings.Builder
	sb.WriteString("@relation CAL500\n\n")
	for i := range 68 {
		fmt.Fprintf(&sb, "@attribute Mean_Acc1298_Mean_Mem40_Centroid_%d numeric\n", i)
	}
	for _, l := range labels {
		fmt.Fprintf(&sb, "@attribute %s {0,1}\n", l) // CAL500 label names hold no spaces
	}
	sb.WriteString("\n@data\n")
	for i, d := range c.Docs {
		for j := range 68 {
			fmt.Fprintf(&sb, "%.6f,", float64(i*j%97)/13-3)
		}
		for j, l := range labels {
			v := "0"
			if slices.Contains(d.Tags, l) {
				v = "1"
			}
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(v)
		}
		sb.WriteByte('\n')
	}
	got, err := Parse(strings.NewReader(sb.String()), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != FormatARFF {
		t.Errorf("detected %q, want arff", got.Format)
	}
	for i := range c.Docs {
		c.Docs[i].ID = fmt.Sprint(i + 1) // mulan ARFF has no ids: row numbers
	}
	if err := sameDocs(FormatARFF, c.Docs, got.Docs); err != nil {
		t.Error(err)
	}
}

// TestTagLengthLimit checks the tag length bound and that error messages quote at
// most ExcerptBytes of the offending input.
func TestTagLengthLimit(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	_, err := Parse(strings.NewReader("d1\trock\tpop\nd2\tjazz\t"+long+"\n"), ParseOptions{Format: FormatTSV})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Reason, "tag of 400 bytes (limit 256)") {
		t.Fatalf("400-byte tag: got %v, want a line-2 error naming the size and the limit", err)
	}
	if len(pe.Error()) > 200 || !strings.Contains(pe.Error(), "…") || !utf8.ValidString(pe.Error()) {
		t.Errorf("message quotes too much or cuts a character: %d bytes: %s", len(pe.Error()), pe.Error())
	}
	ok := strings.Repeat("x", DefaultMaxTagBytes)
	if c, err := Parse(strings.NewReader("d1\t"+ok+"\nd2\trock\n"), ParseOptions{Format: FormatTSV}); err != nil || c.Docs[0].Tags[0] != ok {
		t.Errorf("256-byte tag: got %v, want it kept", err)
	}
	if _, err := Parse(strings.NewReader("d1\t"+ok+"\nd2\trock\n"), ParseOptions{Format: FormatTSV, MaxTagBytes: 10}); err == nil {
		t.Error("MaxTagBytes 10: a 256-byte tag was accepted")
	}
	// A duplicate id of 3,000 bytes is quoted with at most ExcerptBytes of it.
	id := strings.Repeat("a", 3000)
	_, err = Parse(strings.NewReader(id+"\trock\n"+id+"\tpop\n"), ParseOptions{Format: FormatTSV})
	if err == nil || len(err.Error()) > 250 {
		t.Errorf("duplicate 3,000-byte id: got a %d-byte message, want at most ~%d bytes of input quoted", len(fmt.Sprint(err)), ExcerptBytes)
	}
}

func TestExcerptBounded(t *testing.T) {
	for _, s := range []string{strings.Repeat("\xdc", 300), strings.Repeat("é", 300), strings.Repeat("a", 300), "short", strings.Repeat("\x01", 90)} {
		e := Excerpt(s)
		if len(e) > ExcerptBytes+30 {
			t.Errorf("Excerpt of %d bytes is %d bytes: %s", len(s), len(e), e)
		}
		if len(s) > ExcerptBytes && !strings.Contains(e, "…") {
			t.Errorf("Excerpt of %d bytes does not say it was cut: %s", len(s), e)
		}
	}
	if got := Excerpt("rock"); got != `"rock"` {
		t.Errorf("Excerpt(rock) = %s", got)
	}
}
