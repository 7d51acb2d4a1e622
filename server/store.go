package server

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"github.com/taglens/taglens/internal/atomicfile"
	"github.com/taglens/taglens/ml/corpus"
)

// ErrNotFound is returned by store lookups of unknown ids.
var ErrNotFound = errors.New("not found")

// Store is the SQLite database of the data directory: corpora (with their documents),
// models, jobs, evaluations and cached maps. Model weights live in files beside it.
type Store struct {
	db  *sql.DB
	dir string

	// RemovedTemp is the number of temporary files a previous process left
	// in the data directory, removed by OpenStore.
	RemovedTemp int
}

// migrations are applied in order; schema_version holds how many have run.
// Never edit a released migration: append a new one.
var migrations = []string{
	`CREATE TABLE corpora (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		format TEXT NOT NULL,
		docs INTEGER NOT NULL,
		tags INTEGER NOT NULL,
		stats_json TEXT NOT NULL,
		split_json TEXT NOT NULL,
		builtin INTEGER NOT NULL DEFAULT 0,
		created_at INTEGER NOT NULL
	);
	CREATE TABLE documents (
		corpus_id TEXT NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
		idx INTEGER NOT NULL,
		doc_id TEXT NOT NULL,
		tags_json TEXT NOT NULL,
		PRIMARY KEY (corpus_id, idx)
	);
	CREATE TABLE models (
		id TEXT PRIMARY KEY,
		corpus_id TEXT NOT NULL,
		name TEXT NOT NULL,
		seed INTEGER NOT NULL,
		params_json TEXT NOT NULL,
		state TEXT NOT NULL,
		path TEXT NOT NULL DEFAULT '',
		size INTEGER NOT NULL DEFAULT 0,
		job_id TEXT NOT NULL DEFAULT '',
		log_json TEXT NOT NULL DEFAULT '[]',
		info_json TEXT NOT NULL DEFAULT '{}',
		created_at INTEGER NOT NULL
	);
	CREATE TABLE jobs (
		id TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		target_id TEXT NOT NULL,
		params_json TEXT NOT NULL,
		state TEXT NOT NULL,
		progress REAL NOT NULL DEFAULT 0,
		stage TEXT NOT NULL DEFAULT '',
		message TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		started_at INTEGER NOT NULL DEFAULT 0,
		finished_at INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE evaluations (
		id TEXT PRIMARY KEY,
		job_id TEXT NOT NULL,
		corpus_id TEXT NOT NULL,
		request_json TEXT NOT NULL,
		report_json TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL
	);
	CREATE TABLE maps (
		model_id TEXT NOT NULL,
		key TEXT NOT NULL,
		points_json TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		PRIMARY KEY (model_id, key)
	);`,
	// 2: the reason a model cannot be used (a damaged file), shown on its page.
	`ALTER TABLE models ADD COLUMN error TEXT NOT NULL DEFAULT ''`,
	// 3: why the corpus parser chose the format of an uploaded corpus (corpus.Corpus.Detected).
	`ALTER TABLE corpora ADD COLUMN detected TEXT NOT NULL DEFAULT ''`,
}

// OpenStore opens (creating if needed) the database in dir and migrates it.
func OpenStore(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, "taglens.db") +
		"?_pragma=auto_vacuum(INCREMENTAL)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	s := &Store{db: db, dir: dir}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Deleting data must give its space back (vacuumSpace). A database made
	// before auto_vacuum was set keeps its old mode until one full VACUUM.
	var mode int
	if err := db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	if mode != 2 {
		if _, err := db.ExecContext(ctx, `VACUUM`); err != nil {
			db.Close()
			return nil, fmt.Errorf("store: converting the database to incremental vacuum: %w", err)
		}
	}
	if s.RemovedTemp, err = removeTemp(dir); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// removeTemp deletes the temporary files WriteFileAtomic leaves behind when the
// process dies between creating and renaming them, and returns how many there were.
// No other process writes to the data directory while the store is open.
func removeTemp(dir string) (int, error) {
	n := 0
	for _, d := range []string{dir, filepath.Join(dir, "models")} {
		k, err := atomicfile.RemoveLeftovers(d)
		n += k
		if err != nil {
			return n, fmt.Errorf("store: removing a leftover temporary file: %w", err)
		}
	}
	return n, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := s.db.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
	case err != nil:
		return fmt.Errorf("store: migrate: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("store: database schema version %d is newer than this binary (%d)", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, i+1); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %d: %w", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: migration %d: %w", i+1, err)
		}
	}
	return nil
}

// SchemaVersion returns the number of applied migrations.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}

// newID returns a random 12-hex-digit identifier.
func newID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("server: crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

func now() int64 { return time.Now().UnixMilli() }

// CorpusRow is a stored corpus without its documents.
type CorpusRow struct {
	ID        string
	Name      string
	Format    string
	Detected  string // why the parser chose Format; "" when it was given
	Docs      int
	Tags      int
	Stats     CorpusStats
	Split     corpus.Split
	Builtin   bool
	CreatedAt time.Time
}

// CorpusStats is what the corpus pages chart (paper Figures 3 and 4).
type CorpusStats struct {
	// TagCounts are (tag, number of documents using it), in descending count order
	// (ties by tag) — the tag-use distribution of Figure 3.
	TagCounts []TagCount `json:"tag_counts"`
	// Cardinality[k] is the number of documents with exactly k tags (Figure 4).
	Cardinality []int   `json:"cardinality"`
	MeanTags    float64 `json:"mean_tags"`
}

// TagCount is one tag and its document frequency.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// InsertCorpus stores c with its stats and split in one transaction and returns its row.
func (s *Store) InsertCorpus(ctx context.Context, c *corpus.Corpus, st CorpusStats, split corpus.Split, builtin bool) (*CorpusRow, error) {
	row := &CorpusRow{ID: newID(), Name: c.Name, Format: string(c.Format), Detected: c.Detected, Docs: len(c.Docs),
		Tags: len(st.TagCounts), Stats: st, Split: split, Builtin: builtin, CreatedAt: time.UnixMilli(now())}
	stJSON, _ := json.Marshal(st)
	spJSON, _ := json.Marshal(split)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO corpora (id, name, format, detected, docs, tags, stats_json, split_json, builtin, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row.ID, row.Name, row.Format, row.Detected, row.Docs, row.Tags, string(stJSON), string(spJSON), builtin, row.CreatedAt.UnixMilli()); err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO documents (corpus_id, idx, doc_id, tags_json) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	defer stmt.Close()
	for i, d := range c.Docs {
		tj, _ := json.Marshal(d.Tags)
		if _, err := stmt.ExecContext(ctx, row.ID, i, d.ID, string(tj)); err != nil {
			return nil, fmt.Errorf("store: insert corpus: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: insert corpus: %w", err)
	}
	return row, nil
}

const corpusCols = `id, name, format, detected, docs, tags, stats_json, split_json, builtin, created_at`

func scanCorpus(sc interface{ Scan(...any) error }) (*CorpusRow, error) {
	var r CorpusRow
	var st, sp string
	var created int64
	if err := sc.Scan(&r.ID, &r.Name, &r.Format, &r.Detected, &r.Docs, &r.Tags, &st, &sp, &r.Builtin, &created); err != nil {
		return nil, err
	}
	r.CreatedAt = time.UnixMilli(created)
	if err := json.Unmarshal([]byte(st), &r.Stats); err != nil {
		return nil, fmt.Errorf("store: corpus %s stats: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(sp), &r.Split); err != nil {
		return nil, fmt.Errorf("store: corpus %s split: %w", r.ID, err)
	}
	return &r, nil
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
func (s *Store) Corpora(ctx context.Context) ([]*CorpusRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, format, detected, docs, tags, builtin, created_at FROM corpora ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*CorpusRow
	for rows.Next() {
		var r CorpusRow
		var created int64
		if err := rows.Scan(&r.ID, &r.Name, &r.Format, &r.Detected, &r.Docs, &r.Tags, &r.Builtin, &created); err != nil {
			return nil, err
		}
		r.CreatedAt = time.UnixMilli(created)
		out = append(out, &r)
	}
	return out, rows.Err()
}

// Documents re-reads the documents of a stored corpus, in their original order.
func (s *Store) Documents(ctx context.Context, corpusID string) (*corpus.Corpus, error) {
	row, err := s.Corpus(ctx, corpusID)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT doc_id, tags_json FROM documents WHERE corpus_id = ? ORDER BY idx`, corpusID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	c := &corpus.Corpus{Name: row.Name, Format: corpus.Format(row.Format), Docs: make([]corpus.Document, 0, row.Docs)}
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
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if _, err = s.db.ExecContext(ctx, `DELETE FROM documents WHERE corpus_id = ?`, id); err != nil {
		return err
	}
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

// Model states.
const (
	ModelTraining = "training"
	ModelReady    = "ready"
	ModelFailed   = "failed"
	// ModelInterrupted is a model whose training job died with the process or
	// was cancelled; it can be restarted.
	ModelInterrupted = "interrupted"
)

// ModelRow is a stored model's metadata.
type ModelRow struct {
	ID        string
	CorpusID  string
	Name      string
	Seed      uint64
	Params    json.RawMessage
	State     string
	Path      string // model file, relative to the data dir
	Size      int64
	JobID     string
	Log       []TrainPoint
	Info      json.RawMessage // what training recorded (stopping epoch, pairing, …)
	Error     string          // why a failed model cannot be used, when known
	CreatedAt time.Time
}

// TrainPoint is one entry of a training curve.
type TrainPoint struct {
	Stage   string   `json:"stage"`
	Epoch   int      `json:"epoch"`
	Loss    float64  `json:"loss"`
	ValidP2 *float64 `json:"valid_p2,omitempty"`
}

const modelCols = `id, corpus_id, name, seed, params_json, state, path, size, job_id, log_json, info_json, error, created_at`

func scanModel(sc interface{ Scan(...any) error }) (*ModelRow, error) {
	var r ModelRow
	var params, lg, info string
	var seed int64
	var created int64
	if err := sc.Scan(&r.ID, &r.CorpusID, &r.Name, &seed, &params, &r.State, &r.Path, &r.Size, &r.JobID, &lg, &info, &r.Error, &created); err != nil {
		return nil, err
	}
	r.Seed = uint64(seed)
	r.Params = json.RawMessage(params)
	r.Info = json.RawMessage(info)
	r.CreatedAt = time.UnixMilli(created)
	if err := json.Unmarshal([]byte(lg), &r.Log); err != nil {
		return nil, fmt.Errorf("store: model %s log: %w", r.ID, err)
	}
	return &r, nil
}

// InsertModel stores a new model row in state "training".
func (s *Store) InsertModel(ctx context.Context, m *ModelRow) error {
	if m.ID == "" {
		m.ID = newID()
	}
	m.State = ModelTraining
	m.CreatedAt = time.UnixMilli(now())
	if len(m.Params) == 0 {
		m.Params = json.RawMessage("{}")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO models (id, corpus_id, name, seed, params_json, state, job_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, m.ID, m.CorpusID, m.Name, int64(m.Seed), string(m.Params), m.State, m.JobID, m.CreatedAt.UnixMilli())
	return err
}

// Model returns the model row with the given id.
func (s *Store) Model(ctx context.Context, id string) (*ModelRow, error) {
	r, err := scanModel(s.db.QueryRowContext(ctx, `SELECT `+modelCols+` FROM models WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// Models lists all models, newest first.
func (s *Store) Models(ctx context.Context) ([]*ModelRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+modelCols+` FROM models ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ModelRow
	for rows.Next() {
		r, err := scanModel(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SetModelJob records the job currently training the model.
func (s *Store) SetModelJob(ctx context.Context, id, jobID string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET job_id = ?, state = ? WHERE id = ?`, jobID, ModelTraining, id)
	return err
}

// AppendModelLog appends points to a model's training curve.
func (s *Store) AppendModelLog(ctx context.Context, id string, pts ...TrainPoint) error {
	m, err := s.Model(ctx, id)
	if err != nil {
		return err
	}
	lg := append(m.Log, pts...)
	b, _ := json.Marshal(lg)
	_, err = s.db.ExecContext(ctx, `UPDATE models SET log_json = ? WHERE id = ?`, string(b), id)
	return err
}

// ResetModelLog clears a model's training curve (on restart).
func (s *Store) ResetModelLog(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET log_json = '[]' WHERE id = ?`, id)
	return err
}

// FinishModel records the model file and marks the model ready.
func (s *Store) FinishModel(ctx context.Context, id, path string, size int64, info json.RawMessage) error {
	if len(info) == 0 {
		info = json.RawMessage("{}")
	}
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ?, path = ?, size = ?, info_json = ? WHERE id = ?`, ModelReady, path, size, string(info), id)
	return err
}

// SetModelBroken marks a model failed with the reason it cannot be used (its
// file is missing or damaged), so that it is never served again.
func (s *Store) SetModelBroken(ctx context.Context, id, reason string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ?, error = ? WHERE id = ?`, ModelFailed, reason, id)
	return err
}

// SetModelState sets a model's state.
func (s *Store) SetModelState(ctx context.Context, id, state string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ? WHERE id = ?`, state, id)
	return err
}

// DeleteModel removes a model row, its cached maps and its file.
func (s *Store) DeleteModel(ctx context.Context, id string) error {
	m, err := s.Model(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM models WHERE id = ?`, id); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM maps WHERE model_id = ?`, id); err != nil {
		return err
	}
	if m.Path != "" {
		if err := os.Remove(filepath.Join(s.dir, m.Path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return s.vacuumSpace(ctx) // its cached maps can be large
}

// ModelPath returns the relative path of a model's weights file.
func ModelPath(id string) string { return filepath.Join("models", id+".tlm") }

// WriteFileAtomic writes what write produces to dir/rel atomically
// (internal/atomicfile): a crash leaves either the old file or the new one,
// never a torn one. It returns the file size.
func (s *Store) WriteFileAtomic(rel string, write func(w io.Writer) error) (int64, error) {
	return atomicfile.Write(filepath.Join(s.dir, rel), 0o644, write)
}

// Job states.
const (
	JobQueued      = "queued"
	JobRunning     = "running"
	JobDone        = "done"
	JobFailed      = "failed"
	JobCancelled   = "cancelled"
	JobInterrupted = "interrupted"
)

// JobRow is a stored job.
type JobRow struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	TargetID   string          `json:"target_id"`
	Params     json.RawMessage `json:"-"`
	State      string          `json:"state"`
	Progress   float64         `json:"progress"`
	Stage      string          `json:"stage"`
	Message    string          `json:"message"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  time.Time       `json:"started_at"`
	FinishedAt time.Time       `json:"finished_at"`
}

// Finished reports whether the job can make no more progress.
func (j *JobRow) Finished() bool {
	switch j.State {
	case JobDone, JobFailed, JobCancelled, JobInterrupted:
		return true
	}
	return false
}

const jobCols = `id, kind, target_id, params_json, state, progress, stage, message, created_at, started_at, finished_at`

func scanJob(sc interface{ Scan(...any) error }) (*JobRow, error) {
	var r JobRow
	var params string
	var c, st, fi int64
	if err := sc.Scan(&r.ID, &r.Kind, &r.TargetID, &params, &r.State, &r.Progress, &r.Stage, &r.Message, &c, &st, &fi); err != nil {
		return nil, err
	}
	r.Params = json.RawMessage(params)
	r.CreatedAt = time.UnixMilli(c)
	if st != 0 {
		r.StartedAt = time.UnixMilli(st)
	}
	if fi != 0 {
		r.FinishedAt = time.UnixMilli(fi)
	}
	return &r, nil
}

// InsertJob stores a new queued job.
func (s *Store) InsertJob(ctx context.Context, j *JobRow) error {
	if j.ID == "" {
		j.ID = newID()
	}
	j.State = JobQueued
	j.CreatedAt = time.UnixMilli(now())
	if len(j.Params) == 0 {
		j.Params = json.RawMessage("{}")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO jobs (id, kind, target_id, params_json, state, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		j.ID, j.Kind, j.TargetID, string(j.Params), j.State, j.CreatedAt.UnixMilli())
	return err
}

// Job returns the job with the given id.
func (s *Store) Job(ctx context.Context, id string) (*JobRow, error) {
	r, err := scanJob(s.db.QueryRowContext(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// Jobs lists jobs, newest first; kind "" means every kind.
func (s *Store) Jobs(ctx context.Context, kind string) ([]*JobRow, error) {
	q := `SELECT ` + jobCols + ` FROM jobs`
	var args []any
	if kind != "" {
		q += ` WHERE kind = ?`
		args = append(args, kind)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*JobRow
	for rows.Next() {
		r, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// UpdateJob writes a job's state, progress, stage and message (and timestamps).
func (s *Store) UpdateJob(ctx context.Context, j *JobRow) error {
	var st, fi int64
	if !j.StartedAt.IsZero() {
		st = j.StartedAt.UnixMilli()
	}
	if !j.FinishedAt.IsZero() {
		fi = j.FinishedAt.UnixMilli()
	}
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET state = ?, progress = ?, stage = ?, message = ?, started_at = ?, finished_at = ? WHERE id = ?`,
		j.State, j.Progress, j.Stage, j.Message, st, fi, j.ID)
	return err
}

// MarkInterrupted marks every job left queued or running by a previous process as
// interrupted and returns how many there were.
func (s *Store) MarkInterrupted(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET state = ?, finished_at = ?,
		message = 'the server stopped while this job was ' || state
			|| CASE WHEN state = ? AND stage <> '' THEN ', at stage ' || stage || ' (' || CAST(CAST(ROUND(100 * progress) AS INTEGER) AS TEXT) || ' %)' ELSE '' END
			|| CASE WHEN message <> '' THEN '; last progress: ' || message ELSE '' END
		WHERE state IN (?, ?)`, JobInterrupted, now(), JobRunning, JobQueued, JobRunning)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// EvalRow is a stored evaluation run.
type EvalRow struct {
	ID        string
	JobID     string
	CorpusID  string
	Request   json.RawMessage
	Report    json.RawMessage // empty until the job is done
	CreatedAt time.Time
}

// InsertEval stores a new evaluation without a report.
func (s *Store) InsertEval(ctx context.Context, e *EvalRow) error {
	if e.ID == "" {
		e.ID = newID()
	}
	e.CreatedAt = time.UnixMilli(now())
	_, err := s.db.ExecContext(ctx, `INSERT INTO evaluations (id, job_id, corpus_id, request_json, created_at) VALUES (?, ?, ?, ?, ?)`,
		e.ID, e.JobID, e.CorpusID, string(e.Request), e.CreatedAt.UnixMilli())
	return err
}

// SetEvalReport stores the finished report.
func (s *Store) SetEvalReport(ctx context.Context, id string, report []byte) error {
	_, err := s.db.ExecContext(ctx, `UPDATE evaluations SET report_json = ? WHERE id = ?`, string(report), id)
	return err
}

// SetEvalJob records the job computing the evaluation.
func (s *Store) SetEvalJob(ctx context.Context, id, jobID string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE evaluations SET job_id = ? WHERE id = ?`, jobID, id)
	return err
}

const evalCols = `id, job_id, corpus_id, request_json, report_json, created_at`

func scanEval(sc interface{ Scan(...any) error }) (*EvalRow, error) {
	var r EvalRow
	var req, rep string
	var c int64
	if err := sc.Scan(&r.ID, &r.JobID, &r.CorpusID, &req, &rep, &c); err != nil {
		return nil, err
	}
	r.Request = json.RawMessage(req)
	if rep != "" {
		r.Report = json.RawMessage(rep)
	}
	r.CreatedAt = time.UnixMilli(c)
	return &r, nil
}

// Eval returns the evaluation with the given id.
func (s *Store) Eval(ctx context.Context, id string) (*EvalRow, error) {
	r, err := scanEval(s.db.QueryRowContext(ctx, `SELECT `+evalCols+` FROM evaluations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// Evals lists evaluations, newest first.
func (s *Store) Evals(ctx context.Context) ([]*EvalRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+evalCols+` FROM evaluations ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*EvalRow
	for rows.Next() {
		r, err := scanEval(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PutMap caches a computed map's JSON under (model, key).
func (s *Store) PutMap(ctx context.Context, modelID, key string, points []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO maps (model_id, key, points_json, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (model_id, key) DO UPDATE SET points_json = excluded.points_json, created_at = excluded.created_at`,
		modelID, key, string(points), now())
	return err
}

// Map returns a cached map's JSON.
func (s *Store) Map(ctx context.Context, modelID, key string) ([]byte, error) {
	var p string
	err := s.db.QueryRowContext(ctx, `SELECT points_json FROM maps WHERE model_id = ? AND key = ?`, modelID, key).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return []byte(p), err
}

// MapKeys lists the cached map keys of a model.
func (s *Store) MapKeys(ctx context.Context, modelID string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key FROM maps WHERE model_id = ? ORDER BY created_at DESC`, modelID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// likeEscape escapes s for a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// InterruptOrphanModels marks models still "training" whose job is not queued or
// running as interrupted (their process died).
func (s *Store) InterruptOrphanModels(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ? WHERE state = ? AND
		job_id NOT IN (SELECT id FROM jobs WHERE state IN (?, ?))`, ModelInterrupted, ModelTraining, JobQueued, JobRunning)
	return err
}

// Document returns one document of a stored corpus by its id.
func (s *Store) Document(ctx context.Context, corpusID, docID string) (*corpus.Document, error) {
	var tj string
	err := s.db.QueryRowContext(ctx, `SELECT tags_json FROM documents WHERE corpus_id = ? AND doc_id = ?`, corpusID, docID).Scan(&tj)
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
