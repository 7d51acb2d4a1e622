package corpus

import (
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/shareddata"
)

// TestParseSkipsOverCap: in every format, a document with more than
// MaxTagsPerDoc distinct tags (repeats count once) is skipped whole, listed
// with its line and id, and counted in the statistics; the corpus is read.
func TestParseSkipsOverCap(t *testing.T) {
	arffHead := "@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n@attribute c {0,1}\n@attribute d {0,1}\n@data\n"
	for _, tc := range []struct {
		format  Format
		in      string
		kept    []string // ids
		skipped []SkippedDoc
	}{
		{FormatTSV, "a\tx\ty\nb\t1\t2\t3\t4\nc\tx\t1\t1\t2\n", []string{"a", "c"}, []SkippedDoc{{2, "b"}}},
		{FormatCommaLines, "x,y\n1,2,3,4\nx,1,1,2\n\n5,6,7,8,9\n", []string{"1", "3"}, []SkippedDoc{{2, "2"}, {5, "5"}}},
		{FormatJSONL, `{"id":"a","tags":["x"]}` + "\n" + `{"id":"b","tags":["1","2","3","4"]}` + "\n" + `{"id":"c","tags":["x","x","y","z"]}` + "\n",
			[]string{"a", "c"}, []SkippedDoc{{2, "b"}}},
		{FormatCSV, "id,tags\na,x;y\nb,1;2;3;4\nc,x;1;1;2\n", []string{"a", "c"}, []SkippedDoc{{3, "b"}}},
		{FormatLabelMatrix, "id,t1,t2,t3,t4\na,1,1,0,0\nb,1,1,1,1\nc,1,1,1,0\n", []string{"a", "c"}, []SkippedDoc{{3, "b"}}},
		{FormatARFF, arffHead + "1,1,0,0\n1,1,1,1\n1,1,1,0\n", []string{"1", "3"}, []SkippedDoc{{8, "2"}}},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in), ParseOptions{Format: tc.format, MaxTagsPerDoc: 3})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range c.Docs {
				ids = append(ids, d.ID)
				if len(d.Tags) > 3 {
					t.Errorf("document %s kept with %d tags", d.ID, len(d.Tags))
				}
			}
			if !reflect.DeepEqual(ids, tc.kept) || !reflect.DeepEqual(c.Skipped, tc.skipped) {
				t.Errorf("got documents %q, skipped %v, want %q, %v", ids, c.Skipped, tc.kept, tc.skipped)
			}
			s := ComputeStats(c)
			if s.Skipped != len(tc.skipped) || s.TagCap != 3 || len(s.SkippedLines) != len(tc.skipped) || s.SkippedLines[0] != tc.skipped[0].Line {
				t.Errorf("stats: skipped %d, lines %v, cap %d", s.Skipped, s.SkippedLines, s.TagCap)
			}
			if s.Docs != len(tc.kept) || s.MaxTagsPerDoc > 3 {
				t.Errorf("stats: %d documents, at most %d tags", s.Docs, s.MaxTagsPerDoc)
			}
		})
	}
}

// TestParseSkipsDefaultCap: with the default options, a document of
// DefaultMaxTagsPerDoc tags is kept and one of a tag more is skipped (it was
// "line 3: document has more than 10000 tags" for the whole corpus); the
// summary names it.
func TestParseSkipsDefaultCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("a\trock\tjazz\n")
	for _, id := range []string{"full", "over"} {
		b.WriteString(id)
		n := DefaultMaxTagsPerDoc
		if id == "over" {
			n++
		}
		for i := range n {
			b.WriteString("\tt" + strconv.Itoa(i))
		}
		b.WriteString("\tt0\n") // a repeat does not count
	}
	b.WriteString("z\tpop\n")
	c, err := Parse(strings.NewReader(b.String()), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 3 || c.Docs[1].ID != "full" || len(c.Docs[1].Tags) != DefaultMaxTagsPerDoc {
		t.Fatalf("got %d documents", len(c.Docs))
	}
	if want := []SkippedDoc{{3, "over"}}; !reflect.DeepEqual(c.Skipped, want) || c.TagCap != DefaultMaxTagsPerDoc {
		t.Errorf("skipped %v (cap %d), want %v", c.Skipped, c.TagCap, want)
	}
	s := ComputeStats(c)
	if got, want := s.SkippedSummary(), "1 document with more than 10000 tags skipped (line 3)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

func TestSkippedSummary(t *testing.T) {
	for _, tc := range []struct {
		count int
		lines []int
		want  string
	}{
		{0, nil, ""},
		{2, []int{4, 9}, "2 documents with more than 5 tags skipped (lines 4, 9)"},
		{12, []int{1, 2, 3}, "12 documents with more than 5 tags skipped (lines 1, 2, 3, …)"},
		{3, nil, "3 documents with more than 5 tags skipped"},
	} {
		if got := SkippedSummary(tc.count, 5, tc.lines); got != tc.want {
			t.Errorf("SkippedSummary(%d, 5, %v) = %q, want %q", tc.count, tc.lines, got, tc.want)
		}
	}
}

// TestReadSplitSkipped: a split file names every document of the source,
// skipped ones too; their lines are ignored, an unknown id is still an error.
func TestReadSplitSkipped(t *testing.T) {
	c, err := Parse(strings.NewReader("a\tx\nb\t1\t2\t3\nc\ty\nd\tz\n"), ParseOptions{MaxTagsPerDoc: 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSplit(strings.NewReader("a\ttrain\nb\ttest\nc\tvalid\nd\ttest\n"), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Split{Train: []int{0}, Valid: []int{1}, Test: []int{2}}); !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
	if _, err := ReadSplit(strings.NewReader("a\ttrain\nb\ttest\nc\tvalid\nd\ttest\ne\ttest\n"), c); err == nil || !strings.Contains(err.Error(), `line 5: unknown document id "e"`) {
		t.Errorf("unknown id: got %v", err)
	}
}

// TestParseLimitsTooLarge: the limits that bound a parse's memory are errors
// wrapping ErrTooLarge (a 413 for the web app); dropped documents count
// towards MaxDocs, since their ids are held for the duplicate check.
func TestParseLimitsTooLarge(t *testing.T) {
	for _, opt := range []ParseOptions{{MaxDocs: 2}, {MaxMemory: 1000}, {MaxBytes: 10}} {
		_, err := Parse(strings.NewReader("a\tx\nb\t\nc\ty\nd\tz\n"), opt)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: got %v, want ErrTooLarge", opt, err)
		}
	}
}

// TestPubmedGenes reads ../shared/data/pubmed-genes, whose six genome-wide
// documents (10,390 to 19,919 genes) refused the whole corpus before: they are
// skipped, the other 754,853 read, and its split.tsv (which names all 754,859)
// is read with them left out.
func TestPubmedGenes(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 21 MB")
	}
	c, err := ReadFile(shareddata.File(t, "pubmed-genes", "docs.tsv"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{99105, 121352, 138538, 351009, 582801, 720740}; len(c.Docs) != 754_853 || !reflect.DeepEqual(c.SkippedLines(10), want) {
		t.Fatalf("got %d documents, skipped lines %v; want 754853, %v", len(c.Docs), c.SkippedLines(10), want)
	}
	f, err := os.Open(shareddata.File(t, "pubmed-genes", "split.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadSplit(f, c)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Train) + len(s.Valid) + len(s.Test); n != len(c.Docs) || len(s.Train) < 503_000 {
		t.Errorf("split: %d/%d/%d", len(s.Train), len(s.Valid), len(s.Test))
	}
}

// TestParseSkipsBidi: in every format whose rows hold the tags, a document
// with a tag (or an id) holding a bidirectional formatting character is
// skipped whole, listed with its line and id, counted in the statistics and
// left out by ReadSplit; nothing of it reaches the corpus. A tag name of a
// header (label matrix, ARFF) is still refused: it is no document.
func TestParseSkipsBidi(t *testing.T) {
	for _, tc := range []struct {
		format Format
		in     string
		kept   []string
		bidi   []SkippedDoc
	}{
		{FormatTSV, "a\tx\ty\nb\tx\tع\u202bلم\nc\ty\n", []string{"a", "c"}, []SkippedDoc{{2, "b"}}},
		{FormatCommaLines, "x,y\nz,\u2066w\u2069\nx\n", []string{"1", "3"}, []SkippedDoc{{2, "2"}}},
		{FormatJSONL, `{"id":"a","tags":["x"]}` + "\n" + `{"id":"b","tags":["y","evil\u202egnp.exe"]}` + "\n" + `{"id":"c","tags":["x"]}` + "\n",
			[]string{"a", "c"}, []SkippedDoc{{2, "b"}}},
		{FormatCSV, "id,tags\na,x;y\nb,x;\u202ay\nc,y\n", []string{"a", "c"}, []SkippedDoc{{3, "b"}}},
		{FormatTSV, "a\tx\nb\u202e\ty\nc\ty\n", []string{"a", "c"}, []SkippedDoc{{2, "b\u202e"}}},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in), ParseOptions{Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range c.Docs {
				ids = append(ids, d.ID)
				for _, tag := range d.Tags {
					if _, kind := badRune(tag); kind != "" {
						t.Errorf("document %s kept with tag %q", d.ID, tag)
					}
				}
			}
			if !reflect.DeepEqual(ids, tc.kept) || !reflect.DeepEqual(c.BidiSkipped, tc.bidi) || len(c.Skipped) != 0 {
				t.Errorf("got documents %q, bidi-skipped %v, skipped %v; want %q, %v", ids, c.BidiSkipped, c.Skipped, tc.kept, tc.bidi)
			}
			s := ComputeStats(c)
			if s.BidiSkipped != 1 || !reflect.DeepEqual(s.BidiLines, []int{tc.bidi[0].Line}) || s.Skipped != 0 {
				t.Errorf("stats: bidi-skipped %d, lines %v, skipped %d", s.BidiSkipped, s.BidiLines, s.Skipped)
			}
			want := "1 document with a bidirectional formatting character in a tag skipped (line " + strconv.Itoa(tc.bidi[0].Line) + ")"
			if got := s.BidiSummary(); got != want {
				t.Errorf("summary %q, want %q", got, want)
			}
			split := ""
			for i, id := range append(append([]string(nil), tc.kept...), tc.bidi[0].ID) {
				split += id + "\t" + []string{"train", "test", "valid"}[i%3] + "\n"
			}
			sp, err := ReadSplit(strings.NewReader(split), c)
			if err != nil {
				t.Fatalf("split naming the skipped document: %v", err)
			}
			if len(sp.Train)+len(sp.Test)+len(sp.Valid) != len(tc.kept) {
				t.Errorf("split %+v", sp)
			}
		})
	}
}
