package store

import (
	"context"
	"testing"

	"github.com/taglens/taglens/internal/app"
)

func TestStoreMigrationsAndReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := st.schemaVersion(ctx); v != len(migrations) {
		t.Errorf("schema version: got %d, want %d", v, len(migrations))
	}
	c, err := app.ImportCorpus(bytesReader(smallTSV()), "songs", "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.InsertCorpus(ctx, c, StatsOf(c), mustSplit(c), false)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(ctx, dir) // reopening runs no migration twice
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Documents(ctx, row.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Docs) != len(c.Docs) {
		t.Fatalf("documents after reopen: got %d, want %d", len(got.Docs), len(c.Docs))
	}
	for i := range c.Docs {
		if got.Docs[i].ID != c.Docs[i].ID || len(got.Docs[i].Tags) != len(c.Docs[i].Tags) {
			t.Fatalf("document %d: got %+v, want %+v", i, got.Docs[i], c.Docs[i])
		}
	}
	r2, _ := st.CorpusWithSplit(ctx, row.ID)
	if len(r2.Split.Train) != len(row.Split.Train) || r2.Stats.TagCounts[0] != row.Stats.TagCounts[0] {
		t.Error("split or stats changed across reopen")
	}
}
