package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

func TestImportCorpus(t *testing.T) {
	c, err := ImportCorpus(strings.NewReader("d1\trock,guitar\nd2\tjazz,piano\n"), "songs", "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "songs" || len(c.Docs) != 2 {
		t.Fatalf("got %q with %d documents, want songs with 2", c.Name, len(c.Docs))
	}
	for _, tc := range []struct{ in, want string }{
		{"", "no documents"},
		{"d1\trock,guitar\n", "at least 2 are needed"},
		{"d1\trock\nd1\tjazz\n", "line 2"},
	} {
		if _, err := ImportCorpus(strings.NewReader(tc.in), "x", "tsv", 0, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.want)
		}
	}
	if _, err := ImportCorpus(strings.NewReader("d1\ta\n"), "x", "nonsense", 0, nil); err == nil {
		t.Error("an unknown format was accepted")
	}
	var big strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&big, "d%d\trock,guitar\n", i)
	}
	if _, err := ImportCorpus(strings.NewReader(big.String()), "x", "tsv", 100, nil); !errors.Is(err, corpus.ErrTooLarge) {
		t.Errorf("a corpus over the limit: error %v, want corpus.ErrTooLarge", err)
	}
}

func TestReadSplit(t *testing.T) {
	c, err := ImportCorpus(strings.NewReader("d1\trock,guitar\nd2\tjazz,piano\n"), "songs", "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSplit(strings.NewReader("d1\ttrain\nd2\ttest\n"), c)
	if err != nil || len(s.Train) != 1 || len(s.Test) != 1 {
		t.Fatalf("split %+v, error %v; want one train and one test document", s, err)
	}
	if _, err := ReadSplit(strings.NewReader("d1\ttest\nd2\ttest\n"), c); err == nil || !strings.Contains(err.Error(), "no document is in train") {
		t.Errorf("a split without train: error %v", err)
	}
}
