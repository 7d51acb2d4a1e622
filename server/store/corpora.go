package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taglens/taglens/ml/corpus"
)

// CorpusRow is a stored corpus without its documents.
type CorpusRow struct {
	ID       string
	Name     string
	Format   string
	Detected string // why the parser chose Format; "" when it was given
	Docs     int
	Tags     int
	Stats    CorpusStats
	// Split is the corpus's own split, read by CorpusWithSplit only (Corpus
	// and Corpora leave it empty: pubmed-genes's is 6 MB of JSON);
	// SplitSizes are its subsets' sizes, which every read gives.
	Split      corpus.Split
	SplitSizes SplitSizes
	Builtin    bool
	CreatedAt  time.Time
}

// CorpusStats is what the corpus pages chart (paper Figures 3 and 4). As
// stored it is bounded whatever the vocabulary's size (tags.go): every tag
// with its count is in the corpus's tag index (Store.TagIndex).
type CorpusStats struct {
	// TagCounts are (tag, number of documents using it), in descending count order
	// (ties by tag) — the tag-use distribution of Figure 3: the
	// MaxStoredTagCounts most used tags as stored (StatsOf and
	// DocPacker.Stats give every tag, which insertCorpus stores apart).
	TagCounts []TagCount `json:"tag_counts"`
	// Tags is the number of distinct tags (0 when read from a corpus stored
	// before migration 9 and not bounded yet: then len(TagCounts)).
	Tags int `json:"tags,omitempty"`
	// TagUseTail samples the tag-use curve past TagCounts: ranks growing by
	// 2 % (tailStep), the last rank last.
	TagUseTail []RankCount `json:"tag_use_tail,omitempty"`
	// Cardinality[k] is the number of documents with exactly k tags (Figure 4).
	Cardinality []int   `json:"cardinality"`
	MeanTags    float64 `json:"mean_tags"`
	// Dropped counts the documents of the file without tags; Skipped those
	// with more than TagCap tags (corpus.Corpus.Skipped), SkippedLines the
	// first corpus.MaxSkippedLines of their lines. Stored before these
	// fields existed, a corpus reads them as 0.
	Dropped      int   `json:"dropped_docs,omitempty"`
	Skipped      int   `json:"skipped_docs,omitempty"`
	SkippedLines []int `json:"skipped_lines,omitempty"`
	TagCap       int   `json:"tag_cap,omitempty"`
	// BidiSkipped counts the documents skipped for a tag holding a
	// bidirectional formatting character (corpus.Corpus.BidiSkipped),
	// BidiLines the first corpus.MaxSkippedLines of their lines.
	BidiSkipped int   `json:"bidi_skipped_docs,omitempty"`
	BidiLines   []int `json:"bidi_skipped_lines,omitempty"`
}

// SplitSizes are the number of documents of each subset of a corpus's own
// split (all 0 when it has none).
type SplitSizes struct {
	Train int `json:"train"`
	Valid int `json:"valid"`
	Test  int `json:"test"`
	OOV   int `json:"oov"`
}

func sizesOf(sp corpus.Split) SplitSizes {
	return SplitSizes{len(sp.Train), len(sp.Valid), len(sp.Test), len(sp.OOV)}
}

// TagCount is one tag and its document frequency.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// InsertCorpus stores c with its stats and split in one transaction and returns its row.
func (s *Store) InsertCorpus(ctx context.Context, c *corpus.Corpus, st CorpusStats, split corpus.Split, builtin bool) (*CorpusRow, error) {
	return s.insertCorpus(ctx, c, nil, st, split, builtin, "")
}

// InsertUpload stores an uploaded corpus as InsertCorpus does, under its
// content key (uploadKey: a hash of the file, its name, format and split).
// Its documents are those packed in p, read by corpus.ParseTo (c, which
// names the corpus, has none then), or c's when p is nil.
// When a corpus of the same key is stored already, or is stored meanwhile by
// a concurrent upload, it stores nothing and returns that corpus with
// existed true: a client that retries an upload whose answer it lost gets
// the corpus it made, not a duplicate.
func (s *Store) InsertUpload(ctx context.Context, c *corpus.Corpus, p *DocPacker, st CorpusStats, split corpus.Split, key string) (row *CorpusRow, existed bool, err error) {
	if row, err := s.corpusByKey(ctx, key); !errors.Is(err, ErrNotFound) {
		return row, err == nil, err
	}
	row, err = s.insertCorpus(ctx, c, p, st, split, false, key)
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed: corpora.content_key") {
		row, err = s.corpusByKey(ctx, key)
		return row, err == nil, err
	}
	return row, false, err
}

// corpusByKey returns the corpus stored under an upload's content key.
func (s *Store) corpusByKey(ctx context.Context, key string) (*CorpusRow, error) {
	r, err := scanCorpus(s.db.QueryRowContext(ctx, `SELECT `+corpusCols+` FROM corpora WHERE content_key = ?`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

func (s *Store) insertCorpus(ctx context.Context, c *corpus.Corpus, p *DocPacker, st CorpusStats, split corpus.Split, builtin bool, key string) (*CorpusRow, error) {
	if p == nil {
		p = NewDocPacker()
		for _, d := range c.Docs {
			if err := p.Add(d); err != nil {
				return nil, fmt.Errorf("store: insert corpus: %w", err)
			}
		}
	}
	all := st.TagCounts
	st = st.bounded()
	row := &CorpusRow{ID: NewID(), Name: c.Name, Format: string(c.Format), Detected: c.Detected, Docs: p.Docs(),
		Tags: st.Tags, Stats: st, Split: split, SplitSizes: sizesOf(split), Builtin: builtin, CreatedAt: time.UnixMilli(now())}
	stJSON, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	spJSON, err := json.Marshal(split)
	if err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	sizesJSON, err := json.Marshal(row.SplitSizes)
	if err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO corpora (id, name, format, detected, docs, tags, stats_json, split_json, split_sizes, builtin, created_at, content_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row.ID, row.Name, row.Format, row.Detected, row.Docs, row.Tags, string(stJSON), string(spJSON), string(sizesJSON), builtin, row.CreatedAt.UnixMilli(), key); err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	if err := p.insert(ctx, tx, row.ID); err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	index := NewTagIndex(all)
	if err := insertTags(ctx, tx, row.ID, index); err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	s.keepTagIndex(row.ID, index)
	return row, nil
}

const corpusCols = `id, name, format, detected, docs, tags, stats_json, split_sizes, builtin, created_at`

func scanCorpus(sc scanner) (*CorpusRow, error) {
	var r CorpusRow
	var st, sp string
	var created int64
	if err := sc.Scan(&r.ID, &r.Name, &r.Format, &r.Detected, &r.Docs, &r.Tags, &st, &sp, &r.Builtin, &created); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(sp), &r.SplitSizes); err != nil {
		return nil, fmt.Errorf("store: corpus %s split sizes: %w", r.ID, err)
	}
	r.CreatedAt = time.UnixMilli(created)
	if err := json.Unmarshal([]byte(st), &r.Stats); err != nil {
		return nil, fmt.Errorf("store: corpus %s stats: %w", r.ID, err)
	}
	if r.Stats.Tags == 0 {
		r.Stats.Tags = len(r.Stats.TagCounts)
	}
	return &r, nil
}

// CorpusWithSplit is Corpus with the corpus's own split (CorpusRow.Split).
func (s *Store) CorpusWithSplit(ctx context.Context, id string) (*CorpusRow, error) {
	r, err := s.Corpus(ctx, id)
	if err != nil {
		return nil, err
	}
	var sp string
	if err := s.db.QueryRowContext(ctx, `SELECT split_json FROM corpora WHERE id = ?`, id).Scan(&sp); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	if err := json.Unmarshal([]byte(sp), &r.Split); err != nil {
		return nil, fmt.Errorf("store: corpus %s split: %w", r.ID, err)
	}
	return r, nil
}

// Corpus returns the corpus row with the given id.
func (s *Store) Corpus(ctx context.Context, id string) (*CorpusRow, error) {
	r, err := scanCorpus(s.db.QueryRowContext(ctx, `SELECT `+corpusCols+` FROM corpora WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// Corpora lists all corpora, newest first. The rows carry no Stats and no
// Split (use Corpus for one corpus's): the lists of the home and corpora pages
// are read on every visit and must not decode every corpus's tag counts.
// The rows are read from memory while nothing was written since
// (CachedRead): they are shared, and the lists never change them.
func (s *Store) Corpora(ctx context.Context) ([]*CorpusRow, error) {
	return CachedRead(s, "corpora", func() ([]*CorpusRow, error) {
		return queryAll(ctx, s, func(sc scanner) (*CorpusRow, error) {
			var r CorpusRow
			var created int64
			if err := sc.Scan(&r.ID, &r.Name, &r.Format, &r.Detected, &r.Docs, &r.Tags, &r.Builtin, &created); err != nil {
				return nil, err
			}
			r.CreatedAt = time.UnixMilli(created)
			return &r, nil
		}, `SELECT id, name, format, detected, docs, tags, builtin, created_at FROM corpora ORDER BY created_at DESC, id`)
	})
}

// Documents re-reads the documents of a stored corpus, in their original order.
func (s *Store) Documents(ctx context.Context, corpusID string) (*corpus.Corpus, error) {
	row, err := s.Corpus(ctx, corpusID)
	if err != nil {
		return nil, err
	}
	c := &corpus.Corpus{Name: row.Name, Format: corpus.Format(row.Format), Docs: make([]corpus.Document, 0, row.Docs)}
	err = s.readDocs(ctx, corpusID, func(d corpus.Document) bool {
		c.Docs = append(c.Docs, d)
		return true
	})
	if !errors.Is(err, errNoBlobs) {
		return c, err
	}
	// Stored before migration 6: a row per document.
	rows, err := s.db.QueryContext(ctx, `SELECT doc_id, tags_json FROM documents WHERE corpus_id = ? ORDER BY idx`, corpusID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d corpus.Document
		var tj string
		if err := rows.Scan(&d.ID, &tj); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(tj), &d.Tags); err != nil {
			return nil, fmt.Errorf("store: corpus %s document %s: %w", corpusID, d.ID, err)
		}
		c.Docs = append(c.Docs, d)
	}
	return c, rows.Err()
}

// DeleteCorpus removes a corpus and its documents.
func (s *Store) DeleteCorpus(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM corpora WHERE id = ?`, id)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	if _, err = s.db.ExecContext(ctx, `DELETE FROM corpus_blobs WHERE corpus_id = ?`, id); err != nil {
		return err
	}
	if _, err = s.db.ExecContext(ctx, `DELETE FROM documents WHERE corpus_id = ?`, id); err != nil {
		return err
	}
	if _, err = s.db.ExecContext(ctx, `DELETE FROM corpus_tags WHERE corpus_id = ?`, id); err != nil {
		return err
	}
	s.dropTagIndex(id)
	return s.vacuumSpace(ctx)
}

// vacuumSpace returns the pages that deletions freed to the file system, so that
// deleting a corpus shrinks the database file (auto_vacuum is INCREMENTAL).
func (s *Store) vacuumSpace(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
		return fmt.Errorf("store: incremental vacuum: %w", err)
	}
	return nil
}

// Document returns one document of a stored corpus by its id.
func (s *Store) Document(ctx context.Context, corpusID, docID string) (*corpus.Document, error) {
	var found *corpus.Document
	err := s.readDocs(ctx, corpusID, func(d corpus.Document) bool {
		if d.ID == docID {
			found = &d
		}
		return found == nil
	})
	switch {
	case err == nil && found == nil:
		return nil, ErrNotFound
	case !errors.Is(err, errNoBlobs):
		return found, err
	}
	// Stored before migration 6: a row per document.
	var tj string
	err = s.db.QueryRowContext(ctx, `SELECT tags_json FROM documents WHERE corpus_id = ? AND doc_id = ?`, corpusID, docID).Scan(&tj)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	d := &corpus.Document{ID: docID}
	if err := json.Unmarshal([]byte(tj), &d.Tags); err != nil {
		return nil, err
	}
	return d, nil
}

// StatsOf converts corpus.ComputeStats (the paper's Figures 3-4: tag-use
// distribution by decreasing count, document cardinality histogram) into the
// cached form stored with a corpus.
func StatsOf(c *corpus.Corpus) CorpusStats {
	s := corpus.ComputeStats(c)
	st := CorpusStats{Cardinality: s.Cardinality, MeanTags: s.MeanTagsPerDoc, TagCounts: make([]TagCount, len(s.TagUse)),
		Dropped: s.Dropped, Skipped: s.Skipped, SkippedLines: s.SkippedLines, TagCap: s.TagCap,
		BidiSkipped: s.BidiSkipped, BidiLines: s.BidiLines}
	for i, tc := range s.TagUse {
		st.TagCounts[i] = TagCount{Tag: tc.Tag, Count: tc.Count}
	}
	return st
}
