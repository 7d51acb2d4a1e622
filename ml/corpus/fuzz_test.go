package corpus

import (
	"bytes"
	"errors"
	"testing"
)

var fuzzSeeds = []string{
	"a\trock\tguitar\nb\tjazz\n",
	"\ufeffa\t rock \tno vocals\r\n\r\nb\tjazz\trock\tjazz\r\n",
	"rock, guitar\n\njazz,,sax\n",
	"id,tags\nx1,rock;guitar\nx2,\"jazz;big band, swing\"\n",
	"Labels,Name,year\n\"a,b\",n1,1999\nc|d,n2,2000\n",
	`{"id":"a","tags":["rock","guitar","rock"]}` + "\n" + `{"id":7,"tags":["<b>x</b>"],"other":1}` + "\n",
	"id,rock,jazz,no vocals\nd1,1,0,1\nd2,0,1,0\n",
	"rock,jazz\n1,1\n0,1\n",
	"% mulan\n@relation 'CAL: test'\n@attribute f1 numeric\n@attribute 'Genre - Rock' {0,1}\n@attribute jazz {0,1}\n@attribute mood {happy,sad}\n@data\n0.5,1,0,happy\n-1.2e3,1,1,'sad'\n",
	"@relation r\n@attribute id string\n@attribute 'x, y' {0,1}\n@attribute z {0,1}\n@data\n{0 'doc, one',1 1}\n{0 d2,1 1,2 1}\n",
	"@relation 'Music: -C 2'\n@attribute l1 numeric\n@attribute l2 numeric\n@attribute f numeric\n@data\n1,0,0.4\n1,1,9\n",
}

var fuzzFormats = []Format{"", FormatTSV, FormatCommaLines, FormatCSV, FormatJSONL, FormatLabelMatrix, FormatARFF}

// fuzzRoundTrip parses data in format f ("" = detect); when that succeeds, the
// corpus written in its format must parse back to the same documents.
func fuzzRoundTrip(t *testing.T, data []byte, f Format) {
	opt := ParseOptions{Format: f, MaxLineBytes: 1 << 16}
	c, err := Parse(bytes.NewReader(data), opt)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error is %T, want *ParseError: %v", err, err)
		}
		return
	}
	if len(c.Docs) < 2 {
		t.Fatalf("got %d documents without an error", len(c.Docs))
	}
	var buf bytes.Buffer
	if err := Write(&buf, c, c.Format); err != nil {
		t.Fatalf("Write(%s) of a parsed corpus: %v", c.Format, err)
	}
	c2, err := Parse(bytes.NewReader(buf.Bytes()), ParseOptions{Format: c.Format})
	if err != nil {
		t.Fatalf("re-parse %s: %v\ninput %q\nwritten %q", c.Format, err, data, buf.Bytes())
	}
	if err := sameDocs(c.Format, c.Docs, c2.Docs); err != nil {
		t.Fatalf("round trip %s: %v\ninput %q\nwritten %q", c.Format, err, data, buf.Bytes())
	}
}

// One fuzz target per parser (plus detection), as docs/design.md\'s conventions ask.
func FuzzParseDetect(f *testing.F) { fuzzTarget(f, "") }
func FuzzParseTSV(f *testing.F)    { fuzzTarget(f, FormatTSV) }
func FuzzParseLines(f *testing.F)  { fuzzTarget(f, FormatCommaLines) }
func FuzzParseCSV(f *testing.F)    { fuzzTarget(f, FormatCSV) }
func FuzzParseJSONL(f *testing.F)  { fuzzTarget(f, FormatJSONL) }
func FuzzParseMatrix(f *testing.F) { fuzzTarget(f, FormatLabelMatrix) }
func FuzzParseARFF(f *testing.F)   { fuzzTarget(f, FormatARFF) }

func fuzzTarget(f *testing.F, format Format) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, data, format) })
}

// FuzzWriteAll parses arbitrary JSON Lines (whose tags may hold any character) and
// writes the corpus in every format: either Write refuses with ErrNotRepresentable
// or the result parses back to the same documents.
func FuzzWriteAll(f *testing.F) {
	f.Add([]byte(`{"id":"a","tags":["x\ty","a,b"]}` + "\n" + `{"id":"b","tags":["c;d","e|f","\r"]}`))
	f.Add([]byte(`{"id":"a\n","tags":["'q'","\"","\\"]}` + "\n" + `{"id":1,"tags":["日本"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(bytes.NewReader(data), ParseOptions{Format: FormatJSONL})
		if err != nil {
			return
		}
		for _, format := range fuzzFormats[1:] {
			var buf bytes.Buffer
			if err := Write(&buf, c, format); err != nil {
				if !errors.Is(err, ErrNotRepresentable) {
					t.Fatalf("Write(%s): %v", format, err)
				}
				continue
			}
			c2, err := Parse(bytes.NewReader(buf.Bytes()), ParseOptions{Format: format})
			if err != nil {
				t.Fatalf("re-parse %s: %v\nwritten %q", format, err, buf.Bytes())
			}
			if err := sameDocs(format, c.Docs, c2.Docs); err != nil {
				t.Fatalf("round trip %s: %v\nwritten %q", format, err, buf.Bytes())
			}
		}
	})
}
