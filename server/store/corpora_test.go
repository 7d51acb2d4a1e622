package store

import (
	"context"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// TestInsertUploadKeyUnique: the content key is unique in the store (the
// error InsertUpload recognises when a concurrent upload stored the same
// corpus first), and InsertUpload then returns the stored corpus.
func TestInsertUploadKeyUnique(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := corpus.Parse(strings.NewReader(string(smallTSV())), corpus.ParseOptions{Name: "k"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.insertCorpus(ctx, c, nil, StatsOf(c), corpus.Split{}, false, "key1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.insertCorpus(ctx, c, nil, StatsOf(c), corpus.Split{}, false, "key1"); err == nil ||
		!strings.Contains(err.Error(), "UNIQUE constraint failed: corpora.content_key") {
		t.Fatalf("a second insert under the same key: %v", err)
	}
	row, existed, err := st.InsertUpload(ctx, c, nil, StatsOf(c), corpus.Split{}, "key1")
	if err != nil || !existed || row.ID != first.ID {
		t.Errorf("InsertUpload: %v, existed %v, %v; want corpus %s", row, existed, err, first.ID)
	}
	if _, err := st.InsertCorpus(ctx, c, StatsOf(c), corpus.Split{}, false); err != nil {
		t.Errorf("two corpora without a key: %v", err)
	}
}
