package corpus

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/testkit"
)

// matrixRows is a clean 0/1 label matrix with an id column: header, then n rows.
func matrixRows(n int) []string {
	rows := []string{"id,rock,jazz,pop,folk"}
	for i := range n {
		cells := []string{"d" + string(rune('a'+i))}
		for j := range 4 {
			cells = append(cells, map[bool]string{true: "1", false: "0"}[(i+j)%3 == 0])
		}
		rows = append(rows, strings.Join(cells, ","))
	}
	return rows
}

func TestDetectReason(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"\n\na\trock\nb\tjazz\n", "tsv: a tab in line 3"},
		{"rock,guitar\njazz\n", "lines: no tab, JSON, ARFF header, tags column or 0/1 matrix in the first 2 lines"},
		{`{"id":1,"tags":["a"]}` + "\n" + `{"id":2,"tags":["b"]}` + "\n", "jsonl: line 1 starts with '{'"},
		{"id,Tags\n1,a\n2,b\n", `csv: the header on line 1 has a "Tags" column`},
		{"% c\n@relation r\n@attribute a {0,1}\n@data\n1\n1\n", "arff: @relation on line 2"},
		{strings.Join(matrixRows(3), "\n") + "\n", "matrix: a header of 5 columns, then 0/1 cells in all 3 rows read"},
	} {
		c, err := Parse(strings.NewReader(tc.in), ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if c.Detected != tc.want {
			t.Errorf("%q: Detected %q, want %q", tc.in, c.Detected, tc.want)
		}
	}
	c, err := Parse(strings.NewReader("a\trock\nb\tjazz\n"), ParseOptions{Format: FormatTSV})
	if err != nil || c.Detected != "" {
		t.Errorf("explicit format: Detected %q, %v, want empty", c.Detected, err)
	}
}

// TestDetectBrokenMatrix: a sample that looks like a 0/1 label matrix but has a
// bad cell or a ragged row is an error naming the physical line, the column and
// the cell, not a corpus of tags "0" and "1".
func TestDetectBrokenMatrix(t *testing.T) {
	rows := matrixRows(6)
	withRow := func(i int, row string) string {
		r := append([]string(nil), rows...)
		r[i] = row
		return strings.Join(r, "\n") + "\n"
	}
	long := strings.Repeat("é", 100)
	for _, tc := range []struct {
		name, in string
		line     int
		want     []string
	}{
		{"cell 2", withRow(3, "dc,1,0,2,0"), 4, []string{`column "pop"`, `cell "2" is not 0 or 1`, "choose the format explicitly", "label matrix"}},
		{"ragged row", withRow(5, "de,1,0"), 6, []string{"this row has 3 cells", "header of 5 columns", "choose the format explicitly"}},
		{"long row", withRow(2, "db,1,0,0,0,1"), 3, []string{"this row has 6 cells"}},
		{"blank lines counted", "\n" + strings.Replace(withRow(4, "dd,0,0,0,yes"), "\n", "\n\n", 2), 8, []string{`column "folk"`, `cell "yes"`}},
		{"crlf", strings.ReplaceAll(withRow(2, "db,1,0,0,x"), "\n", "\r\n"), 3, []string{`cell "x"`}},
		{"no id column", "a,b,c\n1,0,1\n0,1,1\n1,1,0\n0,2,0\n", 5, []string{`column "b"`, `cell "2"`}},
		{"excerpt", withRow(1, "da,1,"+long+",0,0"), 2, []string{`column "jazz"`, "…", "is not 0 or 1"}},
		// Samples too small for the shares: a header of tag names over rows of numbers.
		{"small, cell 0.5", "rock,jazz,pop\n1,0,1\n0,1,0.5\n", 3,
			[]string{"looks like a 0/1 label matrix (a header of 3 tag names over rows of numbers)", "the cell 0.5 in column 3 (\"pop\") is not 0 or 1: a label matrix holds 0 or 1", "choose the format explicitly"}},
		{"small, ragged row", "rock,jazz,pop\n1,0,1\n0,1\n", 3, []string{"row 2 has 2 cells, the header 3", "choose the format explicitly"}},
		{"small with ids, cell 0.5", "id,rock,jazz,pop\na,1,0,1\nb,0,0.5,1\n", 3, []string{`the cell 0.5 in column 3 ("jazz")`}},
		{"small with ids, long row", "id,rock,jazz\na,1,0\n\nb,0,1,1\n", 4, []string{"row 2 has 4 cells, the header 3"}},
		{"small, a 2 and a ragged row", "rock,jazz,pop,folk\n1,0,2\n0,1,0,1\n", 2, []string{"row 1 has 3 cells, the header 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in), ParseOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want a *ParseError", err, err)
			}
			if pe.Line != tc.line {
				t.Errorf("line %d, want %d: %v", pe.Line, tc.line, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(pe.Reason, w) {
					t.Errorf("%q lacks %q", pe.Reason, w)
				}
			}
			if strings.Contains(pe.Reason, long[:2*ExcerptBytes]) {
				t.Errorf("the message quotes more than %d bytes of the cell: %q", ExcerptBytes, pe.Reason)
			}
			// The explicit formats still decide: matrix gives its own error, lines reads it.
			if _, err := Parse(strings.NewReader(tc.in), ParseOptions{Format: FormatLabelMatrix}); err == nil {
				t.Error("format matrix: got no error")
			}
			if c, err := Parse(strings.NewReader(tc.in), ParseOptions{Format: FormatCommaLines}); err != nil || c.Format != FormatCommaLines {
				t.Errorf("format lines: %v", err)
			}
		})
	}
}

// TestDetectNotAMatrix: comma-separated files that are not label matrices are
// read as before, however many digits they hold.
func TestDetectNotAMatrix(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Format
	}{
		{"tag lines", "rock,guitar,80s\njazz,sax\npop,dance,1,0\nfolk\n", FormatCommaLines},
		{"few cells", "a,b\n1,0\n2,1\n", FormatCommaLines},
		{"numbers as tags", "1990,2000\n1,2\n3,4\n5,6\n7,8\n", FormatCommaLines},
		{"csv with flag columns", "id,tags,live,explicit,remaster,mono\n1,rock;pop,0,1,0,0\n2,jazz,1,0,0,1\n3,folk,0,0,1,0\n4,blues,0,0,0,0\n", FormatCSV},
		{"mostly text", "x,y,z\n1,a,b\n0,c,d\n1,e,f\n0,g,h\n", FormatCommaLines},
		{"small, a count", "rock,jazz,pop\n1,0,1\n0,1,2\n", FormatCommaLines},
		{"small, repeated header name", "rock,rock\n1,0.5\n0,1\n", FormatCommaLines},
		{"small, a word among numbers", "rock,jazz\n1,0.5\n0,pop\n", FormatCommaLines},
		{"small, numeric header", "1,2\n0,1\n1,0.5\n", FormatCommaLines},
		{"small, a tags column", "id,tags\n1,0.5\n2,1\n", FormatCSV},
		{"small, mostly other numbers", "a,b,c\n3,4,5\n1,0.5,7\n", FormatCommaLines},
	} {
		c, err := Parse(strings.NewReader(tc.in), ParseOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if c.Format != tc.want {
			t.Errorf("%s: detected %s (%s), want %s", tc.name, c.Format, c.Detected, tc.want)
		}
	}
}

func TestGzip(t *testing.T) {
	plain := "a\trock\tguitar\nb\tjazz\n"
	gz := testkit.Gzip(t, plain)
	c, err := Parse(bytes.NewReader(gz), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 2 || c.Format != FormatTSV || c.Detected != "tsv: a tab in line 1 (gzip-compressed)" {
		t.Errorf("got %d docs, %s, %q", len(c.Docs), c.Format, c.Detected)
	}
	// Two concatenated members are one stream (as cat a.gz b.gz > c.gz makes).
	two := append(testkit.Gzip(t, "a\trock\n"), testkit.Gzip(t, "b\tjazz\n")...)
	if c, err := Parse(bytes.NewReader(two), ParseOptions{Format: FormatTSV}); err != nil || len(c.Docs) != 2 {
		t.Errorf("two members: %v", err)
	}

	// A file name ending in .gz names the corpus without it.
	dir := t.TempDir()
	p := filepath.Join(dir, "songs.tsv.gz")
	if err := os.WriteFile(p, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := ReadFile(p, ParseOptions{}); err != nil || c.Name != "songs" {
		t.Errorf("ReadFile: %v, name %q", err, c.Name)
	}

	bomb := testkit.Gzip(t, strings.Repeat("rock,jazz\n", 1<<16)) // 640 KiB from about 1 KiB
	damaged := append([]byte(nil), gz...)
	damaged[len(damaged)-6] ^= 0xff // inside the CRC-32 of the trailer
	for _, tc := range []struct {
		name  string
		in    []byte
		opt   ParseOptions
		want  string
		large bool
	}{
		{"truncated", gz[:len(gz)-10], ParseOptions{}, "gzip: the stream is truncated", false},
		{"checksum", damaged, ParseOptions{}, "gzip: checksum mismatch", false},
		{"bad header", []byte{0x1f, 0x8b, 0x99, 0, 0, 0, 0, 0, 0, 0}, ParseOptions{}, "gzip: invalid header", false},
		{"magic only", []byte{0x1f, 0x8b}, ParseOptions{}, "gzip: the stream is truncated", false},
		{"corrupt deflate", append(append([]byte(nil), gz[:10]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), ParseOptions{}, "gzip: corrupt compressed data", false},
		{"trailing junk", append(append([]byte(nil), gz...), "junk after the stream"...), ParseOptions{}, "gzip: data after the end", false},
		{"bomb", bomb, ParseOptions{MaxBytes: 64 << 10}, "gzip: the decompressed corpus is larger than the limit of 64 KiB (65536 bytes)", true},
		{"plain over the limit", []byte(strings.Repeat("a,b\n", 100)), ParseOptions{MaxBytes: 100}, "the corpus is larger than the limit of 100 bytes", true},
		{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, ParseOptions{}, "zstd-compressed; only gzip is read", false},
		{"zip", []byte("PK\x03\x04rest"), ParseOptions{}, "zip-compressed", false},
	} {
		// Detected and named: the damaged streams hold TSV (read as lines, its
		// tabs would be refused inside tags), the large ones comma lines.
		explicit := FormatTSV
		if tc.large {
			explicit = FormatCommaLines
		}
		for _, f := range []Format{"", explicit} {
			tc.opt.Format = f
			_, err := Parse(bytes.NewReader(tc.in), tc.opt)
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(pe.Reason, tc.want) {
				t.Errorf("%s (format %q): got %v, want a *ParseError containing %q", tc.name, f, err, tc.want)
				continue
			}
			if errors.Is(err, ErrTooLarge) != tc.large {
				t.Errorf("%s: errors.Is(ErrTooLarge) = %v", tc.name, !tc.large)
			}
		}
	}
	// Exactly at the limit is fine.
	if _, err := Parse(bytes.NewReader(bomb), ParseOptions{MaxBytes: 10 << 16}); err != nil {
		t.Errorf("input of exactly MaxBytes: %v", err)
	}
	if _, err := Parse(bytes.NewReader(bomb), ParseOptions{MaxBytes: 10<<16 - 1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("input of MaxBytes+1: got %v, want ErrTooLarge", err)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 1 << 30: "1 GiB", 65536: "64 KiB", 3 << 19: "1.5 MiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCSVUnclosedQuoteLine: an unclosed quote is reported on the line that
// opened it, not on the last line of the file it swallowed.
func TestCSVUnclosedQuoteLine(t *testing.T) {
	_, err := Parse(strings.NewReader("id,tags\n1,rock\n2,\"jazz;pop\n3,folk\n4,blues\n"), ParseOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(pe.Reason, "still open on line 5") {
		t.Errorf("got %v, want line 3 naming line 5", err)
	}
}
