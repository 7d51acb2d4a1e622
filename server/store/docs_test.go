package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/taglens/taglens/ml/corpus"
)

// TestStoredDocuments: a corpus's documents read back from their compact
// parts as they were stored (order, ids, tags of any characters), over
// several parts; Document finds one in a later part; the tags of the read
// documents share their strings; a corpus stored as rows of JSON before
// migration 6 is still read.
func TestStoredDocuments(t *testing.T) {
	st, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c := &corpus.Corpus{Name: "parts", Format: corpus.FormatJSONL}
	odd := []string{"naïve", "日本", "a,b;c|d", "tab\tin", "<b>x</b>", ""}
	for i := range 2*docsPerPart + 5 {
		d := corpus.Document{ID: fmt.Sprintf("doc %d", i), Tags: []string{fmt.Sprintf("t%d", i%700), "rock"}}
		if i%1000 == 0 {
			d.Tags = append(d.Tags, odd[(i/1000)%len(odd)]+"!")
		}
		c.Docs = append(c.Docs, d)
	}
	row, err := st.InsertCorpus(ctx, c, StatsOf(c), corpus.Split{}, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Documents(ctx, row.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Docs, c.Docs) || got.Name != "parts" || got.Format != corpus.FormatJSONL {
		t.Fatalf("read back %d documents (%s, %s), not the %d stored", len(got.Docs), got.Name, got.Format, len(c.Docs))
	}
	if unsafe.StringData(got.Docs[0].Tags[1]) != unsafe.StringData(got.Docs[len(got.Docs)-1].Tags[1]) {
		t.Error("the tag \"rock\" of two documents is two strings")
	}
	last := c.Docs[len(c.Docs)-1]
	if d, err := st.Document(ctx, row.ID, last.ID); err != nil || !reflect.DeepEqual(*d, last) {
		t.Errorf("Document(%q): %v, %v", last.ID, d, err)
	}
	if _, err := st.Document(ctx, row.ID, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Document(nope): %v, want ErrNotFound", err)
	}
	var parts int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_blobs WHERE corpus_id = ?`, row.ID).Scan(&parts); err != nil || parts != 4 {
		t.Errorf("%d parts (%v), want the term list and 3 parts of documents", parts, err)
	}

	// A corpus of the documents table (before migration 6).
	two := c.Docs[1:3]
	old, err := st.InsertCorpus(ctx, &corpus.Corpus{Name: "old", Docs: two}, CorpusStats{}, corpus.Split{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, `DELETE FROM corpus_blobs WHERE corpus_id = ?`, old.ID); err != nil {
		t.Fatal(err)
	}
	for i, d := range two {
		if _, err := st.db.ExecContext(ctx, `INSERT INTO documents (corpus_id, idx, doc_id, tags_json) VALUES (?, ?, ?, ?)`,
			old.ID, i, d.ID, fmt.Sprintf(`[%q, %q]`, d.Tags[0], d.Tags[1])); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := st.Documents(ctx, old.ID); err != nil || !reflect.DeepEqual(got.Docs, two) {
		t.Errorf("old corpus: %v, %v", got, err)
	}
	if d, err := st.Document(ctx, old.ID, two[1].ID); err != nil || !reflect.DeepEqual(*d, two[1]) {
		t.Errorf("old corpus, Document: %v, %v", d, err)
	}
	if err := st.DeleteCorpus(ctx, row.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_blobs`).Scan(&parts); err != nil || parts != 0 {
		t.Errorf("%d parts left after deleting (%v)", parts, err)
	}
}
