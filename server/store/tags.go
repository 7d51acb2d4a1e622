package store

import (
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/taglens/taglens/internal/lru"
	"github.com/taglens/taglens/ml/corpus"
)

// A corpus's statistics are stored bounded (migration 9): its stats_json
// holds the MaxStoredTagCounts most used tags, the rest of the tag-use curve
// sampled (CorpusStats.TagUseTail) and the cardinality histogram, whatever
// the vocabulary's size; every tag with its count is stored once, compressed,
// in the corpus_tags table, which the tag search reads (TagIndex). Before,
// stats_json held every tag: cldr-emoji's 345,665 made it 13 MB of JSON that
// every read of the corpus decoded (its page took 0.7 s at the median, 3.5 s
// at p95, and was 17 MB of HTML), and that storing an upload marshalled.

// MaxStoredTagCounts is how many of the most used tags a corpus's statistics
// keep (CorpusStats.TagCounts): the corpus page lists 60 and charts them all.
const MaxStoredTagCounts = 300

// tailStep is the ratio between the ranks of two successive points of the
// sampled tag-use curve past the top tags (2 %: about 360 points from rank
// 300 to rank 345,665).
const tailStep = 1.02

// A RankCount is one point of the tag-use curve: the tag of that rank (1 the
// most used) is used by Count documents.
type RankCount struct {
	Rank  int `json:"rank"`
	Count int `json:"count"`
}

// bounded returns st with its tag counts cut to the MaxStoredTagCounts most
// used and the rest of the curve sampled, and the number of distinct tags
// set; st.TagCounts must hold every tag, in descending count order.
func (st CorpusStats) bounded() CorpusStats {
	all := st.TagCounts
	st.Tags = len(all)
	if len(all) <= MaxStoredTagCounts {
		return st
	}
	st.TagCounts = slices.Clone(all[:MaxStoredTagCounts])
	st.TagUseTail = nil
	for r := MaxStoredTagCounts + 1; ; {
		st.TagUseTail = append(st.TagUseTail, RankCount{Rank: r, Count: all[r-1].Count})
		if r == len(all) {
			break
		}
		r = min(len(all), max(r+1, int(float64(r)*tailStep)))
	}
	return st
}

// insertTags stores the tags of index x (every tag of a corpus with its
// count) as the corpus's row of corpus_tags, flate-compressed: their number,
// each (tag, count) in descending count order, then their ranks in
// lower-case order (TagIndex.sorted), so that reading the index back sorts
// nothing (sorting cldr-emoji's 345,665 tags took 0.1-0.8 s).
func insertTags(ctx context.Context, ex interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, id string, x *TagIndex) error {
	data, err := encodeTags(x)
	if err != nil {
		return err
	}
	_, err = ex.ExecContext(ctx, `INSERT OR REPLACE INTO corpus_tags (corpus_id, data) VALUES (?, ?)`, id, data)
	return err
}

// encodeTags is the corpus_tags row of index x.
func encodeTags(x *TagIndex) ([]byte, error) {
	n := binary.MaxVarintLen64
	for _, tc := range x.tags {
		n += 3*binary.MaxVarintLen64 + len(tc.Tag)
	}
	raw := binary.AppendUvarint(make([]byte, 0, n), uint64(len(x.tags)))
	for _, tc := range x.tags {
		raw = appendString(raw, tc.Tag)
		raw = binary.AppendUvarint(raw, uint64(tc.Count))
	}
	for _, r := range x.sorted {
		raw = binary.AppendUvarint(raw, uint64(r))
	}
	var buf bytes.Buffer
	zw, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// boundStoredStats moves the tag counts of the corpora stored before
// migration 9 (their stats_json holds every tag) to corpus_tags, keeps
// their statistics bounded and counts their splits' subsets; each corpus in a transaction of its own, so an
// interrupted start resumes with the corpora left.
func (s *Store) boundStoredStats(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'corpus_tags'`).Scan(&n); err != nil || n == 0 {
		return err // no table: the tests' stores of older schemas
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM corpora WHERE id NOT IN (SELECT corpus_id FROM corpus_tags)`)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.boundCorpusStats(ctx, id); err != nil {
			return fmt.Errorf("store: bounding corpus %s's statistics: %w", id, err)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return s.vacuumSpace(ctx) // the pages of the statistics' old JSON
}

func (s *Store) boundCorpusStats(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var raw, rawSplit string
	if err := tx.QueryRowContext(ctx, `SELECT stats_json, split_json FROM corpora WHERE id = ?`, id).Scan(&raw, &rawSplit); err != nil {
		return err
	}
	var st CorpusStats
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return err
	}
	var sp corpus.Split
	if err := json.Unmarshal([]byte(rawSplit), &sp); err != nil {
		return err
	}
	sizes, err := json.Marshal(sizesOf(sp))
	if err != nil {
		return err
	}
	if err := insertTags(ctx, tx, id, NewTagIndex(st.TagCounts)); err != nil {
		return err
	}
	b, err := json.Marshal(st.bounded())
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE corpora SET stats_json = ?, split_sizes = ? WHERE id = ?`, string(b), string(sizes), id); err != nil {
		return err
	}
	return tx.Commit()
}

// A TagIndex answers tag searches over every tag of one corpus: the tags
// whose lower-case form starts with a prefix by binary search over them in
// sorted order, and those containing it by a search of their lower-case
// forms joined in frequency order. It is read-only once built, so shared.
type TagIndex struct {
	tags   []TagCount // every tag, in descending count order
	lower  string     // the lower-case tags in that order, each followed by "\x00"
	starts []int32    // where each tag starts in lower, and len(lower)
	sorted []int32    // the tags' ranks (indices of tags) in lower-case order
}

// NewTagIndex builds the index of counts, in descending count order (a
// stored corpus's is read with Store.TagIndex).
func NewTagIndex(counts []TagCount) *TagIndex {
	x := withLower(counts)
	x.sorted = make([]int32, len(counts))
	for i := range x.sorted {
		x.sorted[i] = int32(i)
	}
	slices.SortFunc(x.sorted, func(a, b int32) int {
		if c := strings.Compare(x.lowerOf(a), x.lowerOf(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return x
}

// withLower is the index of counts without its lower-case order.
func withLower(counts []TagCount) *TagIndex {
	x := &TagIndex{tags: counts, starts: make([]int32, 0, len(counts)+1)}
	var b strings.Builder
	for _, tc := range counts {
		x.starts = append(x.starts, int32(b.Len()))
		b.WriteString(strings.ToLower(tc.Tag))
		b.WriteByte(0)
	}
	x.starts = append(x.starts, int32(b.Len()))
	x.lower = b.String()
	return x
}

// lowerOf is the lower-case form of the tag of rank i.
func (x *TagIndex) lowerOf(i int32) string { return x.lower[x.starts[i] : x.starts[i+1]-1] }

// Len is the number of tags.
func (x *TagIndex) Len() int { return len(x.tags) }

// Match returns up to limit tags containing q case-insensitively: those
// starting with it first, then the others, each group most used first (ties
// by tag). An empty q gives the most used tags. Its cost is a binary search
// and a pass over the tags starting with q, plus, when they are fewer than
// limit, a search of the joined lower-case tags for the others.
func (x *TagIndex) Match(q string, limit int) []TagCount {
	q = strings.ToLower(strings.TrimSpace(q))
	if limit <= 0 {
		return []TagCount{}
	}
	if q == "" {
		return slices.Clone(x.tags[:min(limit, len(x.tags))])
	}
	lo, _ := slices.BinarySearchFunc(x.sorted, q, func(i int32, q string) int { return strings.Compare(x.lowerOf(i), q) })
	// The ranks of the tags starting with q, the smallest limit of them.
	var ranks []int32
	for _, r := range x.sorted[lo:] {
		if !strings.HasPrefix(x.lowerOf(r), q) {
			break
		}
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	ranks = ranks[:min(limit, len(ranks))]
	out := make([]TagCount, 0, limit)
	for _, r := range ranks {
		out = append(out, x.tags[r])
	}
	if len(out) == limit || strings.IndexByte(q, 0) >= 0 {
		return out
	}
	// Inner matches, in frequency order: the occurrences of q in the joined
	// tags that do not start a tag.
	for from := 0; len(out) < limit; {
		k := strings.Index(x.lower[from:], q)
		if k < 0 {
			break
		}
		at := int32(from + k)
		r, found := slices.BinarySearch(x.starts, at)
		if !found {
			r-- // the tag holding the occurrence
			out = append(out, x.tags[r])
		}
		from = int(x.starts[r+1]) // the next tag
	}
	return out
}

// decodeTags reads a corpus_tags row into its index. A lower-case order
// that is not a permutation of the tags is damage.
func decodeTags(data []byte) (*TagIndex, error) {
	d, err := newPartReader(data)
	if err != nil {
		return nil, err
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errCorrupt
	}
	counts := make([]TagCount, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		t := d.str()
		counts = append(counts, TagCount{Tag: t, Count: int(d.uvarint())})
	}
	x := withLower(counts)
	x.sorted = make([]int32, n)
	seen := make([]bool, n)
	for i := range x.sorted {
		r := d.uvarint()
		if d.err != nil || r >= n || seen[r] {
			return nil, errCorrupt
		}
		seen[r] = true
		x.sorted[i] = int32(r)
	}
	return x, d.err
}

// tagIndexes caches the TagIndex of the corpora searched last.
type tagIndexes struct {
	mu sync.Mutex
	c  *lru.Cache[string, *TagIndex]
}

// maxTagIndexes bounds the tag indexes held: cldr-emoji's 345,665 tags take
// about 25 MB.
const maxTagIndexes = 4

// TagIndex returns the tag search index of corpus id, read from its stored
// tags once and kept while it is among the maxTagIndexes corpora searched
// last. ErrNotFound for an unknown corpus.
func (s *Store) TagIndex(ctx context.Context, id string) (*TagIndex, error) {
	s.tagIdx.mu.Lock()
	defer s.tagIdx.mu.Unlock()
	if s.tagIdx.c == nil {
		s.tagIdx.c = lru.New[string, *TagIndex](maxTagIndexes)
	}
	if x, ok := s.tagIdx.c.Get(id); ok {
		return x, nil
	}
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM corpus_tags WHERE corpus_id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	x, err := decodeTags(data)
	if err != nil {
		return nil, fmt.Errorf("store: corpus %s tags: %w", id, err)
	}
	s.tagIdx.c.Add(id, x)
	return x, nil
}

// keepTagIndex caches the index of a corpus just stored: its first search
// does not read it back.
func (s *Store) keepTagIndex(id string, x *TagIndex) {
	s.tagIdx.mu.Lock()
	defer s.tagIdx.mu.Unlock()
	if s.tagIdx.c == nil {
		s.tagIdx.c = lru.New[string, *TagIndex](maxTagIndexes)
	}
	s.tagIdx.c.Add(id, x)
}

// dropTagIndex forgets the cached index of a deleted corpus.
func (s *Store) dropTagIndex(id string) {
	s.tagIdx.mu.Lock()
	defer s.tagIdx.mu.Unlock()
	if s.tagIdx.c != nil {
		s.tagIdx.c.Remove(id)
	}
}
