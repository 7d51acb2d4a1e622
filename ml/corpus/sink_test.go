package corpus

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// collect is a DocSink that keeps copies of the documents.
type collect struct {
	docs  []Document
	bytes int64
	fail  error
}

func (c *collect) Add(d Document) error {
	if c.fail != nil && len(c.docs) == 1 {
		return c.fail
	}
	c.docs = append(c.docs, Document{ID: d.ID, Tags: slices.Clone(d.Tags)})
	return nil
}

func (c *collect) Bytes() int64 { return c.bytes }

// TestParseTo: ParseTo hands the sink the documents Parse keeps, in order,
// and returns the corpus without them but with its dropped and skipped
// documents; a sink's error ends the parse; the sink's bytes count against
// MaxMemory; fewer than two documents kept is refused as by Parse.
func TestParseTo(t *testing.T) {
	in := "a\trock\tjazz\nb\n" + "c\t" + strings.Repeat("x\t", 3) + "y\tz\n" + "d\trock\n"
	opt := ParseOptions{MaxTagsPerDoc: 2}
	want, err := Parse(strings.NewReader(in), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Docs) != 2 || want.Dropped != 1 || len(want.Skipped) != 1 {
		t.Fatalf("Parse: %d documents, %d dropped, %v skipped", len(want.Docs), want.Dropped, want.Skipped)
	}
	var sink collect
	got, err := ParseTo(strings.NewReader(in), opt, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sink.docs, want.Docs) || got.Docs != nil {
		t.Errorf("sink got %v (corpus %v), want %v", sink.docs, got.Docs, want.Docs)
	}
	want.Docs = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("corpus %+v, want %+v", got, want)
	}
	boom := errors.New("disk full")
	if _, err := ParseTo(strings.NewReader(in), opt, &collect{fail: boom}); !errors.Is(err, boom) {
		t.Errorf("sink error: %v", err)
	}
	_, err = ParseTo(strings.NewReader(in), ParseOptions{MaxMemory: 1 << 20}, &collect{bytes: 1 << 20})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 1: the corpus would need more than 1 MiB") {
		t.Errorf("sink over the budget: %v", err)
	}
	if _, err := ParseTo(strings.NewReader("a\trock\nb\n"), ParseOptions{}, &collect{}); err == nil || !strings.Contains(err.Error(), "only 1 document") {
		t.Errorf("one document: %v", err)
	}
}

// TestLinesIDsNotKept: the ids of the lines format are line numbers, unique
// by construction, so a dropped document of it holds no memory: 200,000
// lines without tags fit a 1 MiB budget (each cost an id's 55 bytes
// before, and a gzip of such lines reached 641 MB of RSS before the budget
// refused it).
func TestLinesIDsNotKept(t *testing.T) {
	in := "rock,jazz\n" + strings.Repeat(",\n", 200_000) + "pop\n"
	c, err := Parse(strings.NewReader(in), ParseOptions{Format: FormatCommaLines, MaxMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 2 || c.Dropped != 200_000 || c.Docs[1].ID != "200002" {
		t.Errorf("%d documents (%v), %d dropped", len(c.Docs), c.Docs, c.Dropped)
	}
	var tsv strings.Builder
	tsv.WriteString("a\trock\nb\tjazz\n")
	for i := range 200_000 {
		fmt.Fprintf(&tsv, "e%d\n", i)
	}
	if _, err := Parse(strings.NewReader(tsv.String()), ParseOptions{Format: FormatTSV, MaxMemory: 1 << 20}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("as many TSV documents without tags (ids kept for the duplicate check): %v, want ErrTooLarge", err)
	}
}
