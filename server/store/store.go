// Package store is the web app's SQLite database in its data folder:
// corpora (with their documents), models, seed groups, jobs, evaluations and
// cached maps, one file per entity, with the schema's migrations (store.go)
// and the read cache of the lists (cache.go). Model weights live in files
// beside it. It knows nothing of HTTP, echo or the pages.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"github.com/taglens/taglens/internal/atomicfile"
)

// ErrNotFound is returned by store lookups of unknown ids.
var ErrNotFound = errors.New("not found")

// Store is the SQLite database of the data directory: corpora (with their documents),
// models, jobs, evaluations and cached maps. Model weights live in files beside it.
type Store struct {
	db   *sql.DB
	dir  string
	lock *os.File // holds the data folder's lock (lockDir); nil where there is none
	// stmts holds the prepared statements of the lists' queries (prepared),
	// by query text.
	stmts sync.Map
	// tagIdx caches the tag search indexes (TagIndex).
	tagIdx tagIndexes
	// gen counts the writes the store's connections committed, and cache
	// holds lists read at a generation (cache.go).
	gen   atomic.Uint64
	cache readCache

	// RemovedTemp is the number of temporary files a previous process left
	// in the data directory, removed by Open.
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
	// 4: indexes of the job history's pruning (PruneJobs) and of the lookups
	// of a page's job states in one query.
	`CREATE INDEX jobs_kind_state ON jobs (kind, state, finished_at);
	CREATE INDEX models_job ON models (job_id);
	CREATE INDEX evaluations_job ON evaluations (job_id);`,
	// 5: an uploaded corpus's content key (InsertUpload: a retried upload
	// returns the stored corpus); '' for the demo and older corpora.
	`ALTER TABLE corpora ADD COLUMN content_key TEXT NOT NULL DEFAULT '';
	CREATE UNIQUE INDEX corpora_content_key ON corpora (content_key) WHERE content_key != '';`,
	// 6: a corpus's documents as a few compressed parts of term numbers
	// (docs.go) instead of a row of JSON per document.
	`CREATE TABLE corpus_blobs (
		corpus_id TEXT NOT NULL,
		part INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (corpus_id, part)
	) WITHOUT ROWID;`,
	// 7: the lists' order (newest first), so that a page of the job history
	// or of the models reads its rows only, not the whole table sorted.
	`CREATE INDEX jobs_created ON jobs (created_at DESC, id);
	CREATE INDEX jobs_kind_created ON jobs (kind, created_at DESC, id);
	CREATE INDEX models_created ON models (created_at DESC, id);`,
	// 8: seed groups, the models of one training started with several seeds
	// (groups.go).
	groupsMigration,
	// 9: every tag of a corpus with its count, compressed (tags.go), so that
	// stats_json is bounded, and the sizes of its split's subsets, so that
	// reading a corpus does not decode its split; boundStoredStats moves the
	// tags of the corpora stored before it there and counts their splits.
	`CREATE TABLE corpus_tags (
		corpus_id TEXT PRIMARY KEY,
		data BLOB NOT NULL
	) WITHOUT ROWID;
	ALTER TABLE corpora ADD COLUMN split_sizes TEXT NOT NULL DEFAULT '{}';`,
}

// maxConns bounds the store's open SQLite connections.
const maxConns = 8

// Open opens (creating if needed) the database in dir and migrates it.
// The folder is locked first (lockDir): while another process has it open,
// Open fails with a *DataLockedError and touches nothing in it — no job
// is marked interrupted, no temporary file removed, the database not opened.
// Close releases the lock.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	s, err := OpenDriver(ctx, dir, "sqlite")
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// OpenDriver is Open without the folder's lock, through the named
// database/sql driver: the tests' wrapper of "sqlite" that counts the
// statements run (Open calls it with "sqlite" once the folder is locked).
func OpenDriver(ctx context.Context, dir, driver string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, "taglens.db") +
		"?_pragma=auto_vacuum(INCREMENTAL)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	base, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	drv := base.Driver()
	if err := base.Close(); err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	s := &Store{dir: dir}
	// Every connection counts the writes it commits (cache.go).
	db := sql.OpenDB(&genConnector{drv: drv, dsn: dsn, gen: &s.gen})
	s.db = db
	// A small pool of connections kept open: database/sql keeps only two idle
	// connections by default, so under concurrent requests it opened and
	// closed SQLite connections (each running the pragmas above) all the time;
	// wrk at 50 connections measured a p99 over a second on the home page.
	// Readers run concurrently in WAL mode; writers queue on busy_timeout.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.boundStoredStats(ctx); err != nil {
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
// No other process writes to the data directory while the store is open
// (Open holds its lock).
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

// Close closes the database and releases the data folder's lock.
func (s *Store) Close() error {
	s.stmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close() // the database's close below reports what matters
		return true
	})
	err := s.db.Close()
	if s.lock != nil {
		if lerr := s.lock.Close(); err == nil {
			err = lerr
		}
		s.lock = nil
	}
	return err
}

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

// DB is the store's database, for the tests that read or write rows
// directly.
func (s *Store) DB() *sql.DB { return s.db }

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

// schemaVersion returns the number of applied migrations.
func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}

// NewID returns a random 12-hex-digit identifier.
func NewID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("store: crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

func now() int64 { return time.Now().UnixMilli() }

// newRow fills in what a new model or job row gets on insertion: an id when it
// has none, the creation time (now) and "{}" for empty parameters.
func newRow(id *string, created *time.Time, params *json.RawMessage) {
	if *id == "" {
		*id = NewID()
	}
	*created = time.UnixMilli(now())
	if len(*params) == 0 {
		*params = json.RawMessage("{}")
	}
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// prepared returns the prepared statement of query, made once per store
// (database/sql prepares it again on each connection that runs it): the
// lists' queries, run by every page, skip SQLite's parsing, which cost a
// sixth of a page's time under load.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.stmts.LoadOrStore(query, st); loaded {
		st.Close() // another request prepared it first
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// queryAll runs a query (a prepared statement) and scans each row with scan.
func queryAll[T any](ctx context.Context, s *Store, scan func(scanner) (*T, error), query string, args ...any) ([]*T, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*T
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
