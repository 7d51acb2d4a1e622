package store

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// bigCorpus has n documents, document i tagged "t<i>" and, for i < 100,
// "common" too: n+1 distinct tags.
func bigCorpus(n int) *corpus.Corpus {
	c := &corpus.Corpus{Name: "big", Format: corpus.FormatTSV}
	for i := range n {
		d := corpus.Document{ID: fmt.Sprint("d", i), Tags: []string{fmt.Sprintf("T%05d", i)}}
		if i < 100 {
			d.Tags = append(d.Tags, "common")
		}
		c.Docs = append(c.Docs, d)
	}
	return c
}

// TestBoundedStats: a corpus of 2,001 tags is stored with the 300 most used
// in its statistics, the rest of the tag-use curve sampled, every tag in its
// tag index, and its split's sizes, which Corpus reads without the split; a
// corpus stored before migration 9 (every tag in its stats_json, no tag
// index, no split sizes) is bounded when the store opens, and searched the
// same.
func TestBoundedStats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	c := bigCorpus(2000)
	full := StatsOf(c)
	var split corpus.Split
	for i := range 2000 {
		if i < 1500 {
			split.Train = append(split.Train, i)
		} else {
			split.Test = append(split.Test, i)
		}
	}
	row, err := st.InsertCorpus(ctx, c, full, split, false)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		r, err := st.Corpus(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		s := r.Stats
		if r.SplitSizes != (SplitSizes{Train: 1500, Test: 500}) || len(r.Split.Train) != 0 {
			t.Errorf("%s: split sizes %+v, split of %d train documents read", when, r.SplitSizes, len(r.Split.Train))
		}
		if r, err := st.CorpusWithSplit(ctx, row.ID); err != nil || len(r.Split.Train) != 1500 {
			t.Errorf("%s: CorpusWithSplit: %v", when, err)
		}
		if r.Tags != 2001 || s.Tags != 2001 || len(s.TagCounts) != MaxStoredTagCounts || s.TagCounts[0] != (TagCount{"common", 100}) {
			t.Errorf("%s: %d tags (stats %d), %d tag counts, first %v", when, r.Tags, s.Tags, len(s.TagCounts), s.TagCounts[0])
		}
		last := s.TagUseTail[len(s.TagUseTail)-1]
		if len(s.TagUseTail) < 10 || len(s.TagUseTail) > 200 || s.TagUseTail[0].Rank != MaxStoredTagCounts+1 || last.Rank != 2001 || last.Count != 1 {
			t.Errorf("%s: tail of %d points, from rank %d to %v", when, len(s.TagUseTail), s.TagUseTail[0].Rank, last)
		}
		x, err := st.TagIndex(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := x.Match("t0199", 5); len(got) != 5 || got[0].Tag != "T01990" {
			t.Errorf("%s: t0199 → %v", when, got)
		}
		if got := x.Match("T01999", 5); !slices.Equal(got, []TagCount{{"T01999", 1}}) {
			t.Errorf("%s: T01999 → %v", when, got)
		}
		if got := x.Match("mmo", 5); !slices.Equal(got, []TagCount{{"common", 100}}) {
			t.Errorf("%s: mmo → %v", when, got)
		}
	}
	check("stored")

	// As stored before migration 9.
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, `UPDATE corpora SET stats_json = ?, split_sizes = '{}' WHERE id = ?`, string(b), row.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, `DELETE FROM corpus_tags`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check("reopened")
	if err := st.DeleteCorpus(ctx, row.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TagIndex(ctx, row.ID); err != ErrNotFound {
		t.Errorf("a deleted corpus's tag index: %v", err)
	}
}

// TestTagIndexMatch: prefix matches (case-insensitive) most used first,
// then inner matches most used first, the limit kept.
func TestTagIndexMatch(t *testing.T) {
	x := NewTagIndex([]TagCount{{"Rock", 9}, {"hard rock", 8}, {"rockabilly", 7}, {"jazz", 6}, {"ROCK opera", 5}, {"punk rock", 1}})
	for _, tc := range []struct {
		q     string
		limit int
		want  []string
	}{
		{"rock", 10, []string{"Rock", "rockabilly", "ROCK opera", "hard rock", "punk rock"}},
		{" RO ", 2, []string{"Rock", "rockabilly"}},
		{"rock", 4, []string{"Rock", "rockabilly", "ROCK opera", "hard rock"}},
		{"", 2, []string{"Rock", "hard rock"}},
		{"zz", 5, []string{"jazz"}},
		{"x", 5, nil},
		{"k\x00", 5, nil},
	} {
		var got []string
		for _, m := range x.Match(tc.q, tc.limit) {
			got = append(got, m.Tag)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Match(%q, %d) = %q, want %q", tc.q, tc.limit, got, tc.want)
		}
	}
}

// TestDecodeTagsDamaged: a damaged corpus_tags row (cut anywhere, or its
// lower-case order not a permutation) is an error, never a panic or an
// index that reads out of range.
func TestDecodeTagsDamaged(t *testing.T) {
	x := NewTagIndex([]TagCount{{"rock", 3}, {"Jazz", 2}, {"pop", 1}})
	data, err := encodeTags(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeTags(data)
	if err != nil || !slices.Equal(got.sorted, x.sorted) || len(got.Match("j", 5)) != 1 {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	raw := []byte{3, 4, 'r', 'o', 'c', 'k', 3, 4, 'j', 'a', 'z', 'z', 2, 3, 'p', 'o', 'p', 1}
	for _, tail := range [][]byte{{1, 2}, {1, 1, 0}, {1, 2, 7}, {}} {
		if _, err := decodeTags(deflate(t, append(slices.Clone(raw), tail...))); err == nil {
			t.Errorf("order %v accepted", tail)
		}
	}
	for i := range len(data) {
		if x, err := decodeTags(data[:i]); err == nil && x.Len() == 3 {
			t.Errorf("cut at %d: read whole", i)
		}
	}
}

func deflate(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
