package store

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// TestDocPacker: a corpus packed as the parser reads it (corpus.ParseTo, as
// an upload does) is stored in the same parts, byte for byte, as the parsed
// corpus by InsertCorpus, reads back as the documents Parse keeps, and its
// statistics counted while packing are StatsOf's, with the documents left
// out (dropped, over the tag cap).
func TestDocPacker(t *testing.T) {
	var b strings.Builder
	for i := range 2*docsPerPart + 77 {
		switch {
		case i == 10:
			fmt.Fprintf(&b, "empty%d\n", i)
		case i%5000 == 3:
			fmt.Fprintf(&b, "long%d\t%s\n", i, strings.Repeat("g\t", 3)+"h\ti\tj\tk")
		default:
			fmt.Fprintf(&b, "d%d\tt%d\trock\tt%d\n", i, i%300, (i*7)%1000)
		}
	}
	opt := corpus.ParseOptions{MaxTagsPerDoc: 4, Name: "packed"}
	c, err := corpus.Parse(strings.NewReader(b.String()), opt)
	if err != nil {
		t.Fatal(err)
	}
	p := NewDocPacker()
	meta, err := corpus.ParseTo(strings.NewReader(b.String()), opt, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Skipped) == 0 || c.Dropped != 1 || p.Docs() != len(c.Docs) || p.Bytes() <= 0 {
		t.Fatalf("%d skipped, %d dropped, %d documents packed of %d (%d bytes)", len(c.Skipped), c.Dropped, p.Docs(), len(c.Docs), p.Bytes())
	}
	var wantIDs []string
	for _, d := range c.Docs {
		wantIDs = append(wantIDs, d.ID)
	}
	if ids, err := p.IDs(); err != nil || !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("IDs: %d ids (%v), want %d", len(ids), err, len(wantIDs))
	}
	if got, want := p.Stats(meta), StatsOf(c); !reflect.DeepEqual(got, want) {
		t.Errorf("statistics while packing %+v\nwant %+v", got, want)
	}
	st, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	whole, err := st.InsertCorpus(ctx, c, StatsOf(c), corpus.Split{}, false)
	if err != nil {
		t.Fatal(err)
	}
	up, existed, err := st.InsertUpload(ctx, meta, p, p.Stats(meta), corpus.Split{}, "k")
	if err != nil || existed || up.Docs != len(c.Docs) || up.Name != "packed" {
		t.Fatalf("InsertUpload: %+v, %v, %v", up, existed, err)
	}
	got, err := st.Documents(ctx, up.ID)
	if err != nil || !reflect.DeepEqual(got.Docs, c.Docs) {
		t.Fatalf("read back %d documents (%v), want the %d parsed", len(got.Docs), err, len(c.Docs))
	}
	parts := func(id string) [][]byte {
		rows, err := st.db.QueryContext(ctx, `SELECT data FROM corpus_blobs WHERE corpus_id = ? ORDER BY part`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]byte
		for rows.Next() {
			var d []byte
			if err := rows.Scan(&d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
		return out
	}
	if ids, err := p.IDs(); err != nil || !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("IDs once stored: %d ids (%v), want %d", len(ids), err, len(wantIDs))
	}
	if err := p.Add(c.Docs[0]); err == nil {
		t.Error("a document added to a stored packer")
	}
	a, z := parts(whole.ID), parts(up.ID)
	if len(a) != 4 || len(z) != len(a) {
		t.Fatalf("%d and %d parts, want 4", len(a), len(z))
	}
	for i := range a {
		if !bytes.Equal(a[i], z[i]) {
			t.Errorf("part %d differs", i)
		}
	}
}
