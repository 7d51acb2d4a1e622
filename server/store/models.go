package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taglens/taglens/internal/atomicfile"
)

// Model states.
const (
	ModelTraining = "training"
	ModelReady    = "ready"
	ModelFailed   = "failed"
	// ModelInterrupted is a model whose training job died with the process or
	// was stopped by the server's shutdown; it can be restarted.
	ModelInterrupted = "interrupted"
	// ModelCancelled is a model whose training a user cancelled; it can be
	// trained again.
	ModelCancelled = "cancelled"
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
	// JobState is the stored state of the job JobID names (ModelList only).
	JobState string
}

// TrainPoint is one entry of a training curve.
type TrainPoint struct {
	Stage   string   `json:"stage"`
	Epoch   int      `json:"epoch"`
	Loss    float64  `json:"loss"`
	ValidP2 *float64 `json:"valid_p2,omitempty"`
	// ValidMAP is the epoch's validation extended MAP, the default
	// early-stopping criterion (absent from curves stored before it).
	ValidMAP *float64 `json:"valid_map,omitempty"`
}

const modelCols = `id, corpus_id, name, seed, params_json, state, path, size, job_id, log_json, info_json, error, created_at`

func scanModel(sc scanner) (*ModelRow, error) {
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

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// InsertModel stores a new model row in state "training" (with m.JobID, ""
// until startModelJob gives it one).
func (s *Store) InsertModel(ctx context.Context, m *ModelRow) error {
	return insertModel(ctx, s.db, m)
}

func insertModel(ctx context.Context, db execer, m *ModelRow) error {
	newRow(&m.ID, &m.CreatedAt, &m.Params)
	m.State = ModelTraining
	_, err := db.ExecContext(ctx, `INSERT INTO models (id, corpus_id, name, seed, params_json, state, job_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, m.ID, m.CorpusID, m.Name, int64(m.Seed), string(m.Params), m.State, m.JobID, m.CreatedAt.UnixMilli())
	return err
}

// ErrModelBusy refuses a model transition that its state does not allow.
var ErrModelBusy = errors.New("the model is training")

// startModelJob (in the transaction that stores job jobID) moves a model to
// "training" under that job: from interrupted, cancelled or failed (a restart), or from a
// new row not yet given a job. A model in any other state (training, ready)
// is left alone and ErrModelBusy returned; ErrNotFound for an unknown id.
func startModelJob(ctx context.Context, tx *sql.Tx, id, jobID string) error {
	res, err := tx.ExecContext(ctx, `UPDATE models SET state = ?, job_id = ? WHERE id = ?
		AND (state IN (?, ?, ?) OR (state = ? AND job_id = ''))`,
		ModelTraining, jobID, id, ModelInterrupted, ModelCancelled, ModelFailed, ModelTraining)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var state string
	if err := tx.QueryRowContext(ctx, `SELECT state FROM models WHERE id = ?`, id).Scan(&state); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	}
	return fmt.Errorf("model %q is %s: %w", id, state, ErrModelBusy)
}

// EndModelJob records how job jobID left a model it was training (failed,
// cancelled or interrupted). It changes nothing when the model is no longer training
// under that job.
func (s *Store) EndModelJob(ctx context.Context, id, jobID, state string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ? WHERE id = ? AND job_id = ? AND state = ?`, state, id, jobID, ModelTraining)
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
	return queryAll(ctx, s, scanModel, `SELECT `+modelCols+` FROM models ORDER BY created_at DESC, id`)
}

// ModelList lists the models, newest first, as the pages list them: without
// their parameters, training curve and training record, each with the
// stored state of the job it names (ModelRow.JobState), in one query; at
// most limit of them (0: all) from the offset-th.
func (s *Store) ModelList(ctx context.Context, limit, offset int) ([]*ModelRow, error) {
	q := `SELECT m.id, m.corpus_id, m.name, m.seed, m.state, m.size, m.job_id, m.error, m.created_at, COALESCE(j.state, '')
		FROM models m LEFT JOIN jobs j ON j.id = m.job_id ORDER BY m.created_at DESC, m.id`
	var args []any
	if limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limit, offset)
	}
	// From memory while nothing was written since (CachedRead): the rows
	// are shared, and never changed by the lists.
	return CachedRead(s, fmt.Sprintf("models\x00%d\x00%d", limit, offset), func() ([]*ModelRow, error) { return s.modelList(ctx, q, args) })
}

func (s *Store) modelList(ctx context.Context, q string, args []any) ([]*ModelRow, error) {
	return queryAll(ctx, s, func(sc scanner) (*ModelRow, error) {
		var r ModelRow
		var seed, created int64
		if err := sc.Scan(&r.ID, &r.CorpusID, &r.Name, &seed, &r.State, &r.Size, &r.JobID, &r.Error, &created, &r.JobState); err != nil {
			return nil, err
		}
		r.Seed, r.CreatedAt = uint64(seed), time.UnixMilli(created)
		return &r, nil
	}, q, args...)
}

// Counts returns how many corpora, models and evaluations the store holds,
// and the newest ready model ("" when none), in one query.
func (s *Store) Counts(ctx context.Context) (corpora, models, evals int, newestReady string, err error) {
	type counts struct {
		corpora, models, evals int
		ready                  string
	}
	c, err := CachedRead(s, "counts", func() (c counts, err error) {
		st, err := s.prepared(ctx, `SELECT (SELECT COUNT(*) FROM corpora), (SELECT COUNT(*) FROM models),
			(SELECT COUNT(*) FROM evaluations),
			COALESCE((SELECT id FROM models WHERE state = ? ORDER BY created_at DESC, id LIMIT 1), '')`)
		if err != nil {
			return c, err
		}
		err = st.QueryRowContext(ctx, ModelReady).Scan(&c.corpora, &c.models, &c.evals, &c.ready)
		return c, err
	})
	return c.corpora, c.models, c.evals, c.ready, err
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
	b, err := json.Marshal(lg)
	if err != nil {
		return fmt.Errorf("store: training curve of model %s: %w", id, err)
	}
	_, err = s.db.ExecContext(ctx, `UPDATE models SET log_json = ? WHERE id = ?`, string(b), id)
	return err
}

// ResetModelLog clears a model's training curve (on restart).
func (s *Store) ResetModelLog(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET log_json = '[]' WHERE id = ?`, id)
	return err
}

// FinishModel records the model file written by job jobID and marks the
// model ready; ErrModelBusy when the model is no longer training under that
// job (nothing is changed then).
func (s *Store) FinishModel(ctx context.Context, id, jobID, path string, size int64, info json.RawMessage) error {
	if len(info) == 0 {
		info = json.RawMessage("{}")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE models SET state = ?, path = ?, size = ?, info_json = ? WHERE id = ? AND job_id = ? AND state = ?`,
		ModelReady, path, size, string(info), id, jobID, ModelTraining)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	return fmt.Errorf("model %q is no longer trained by job %q: %w", id, jobID, ErrModelBusy)
}

// SetModelBroken marks a model failed with the reason it cannot be used (its
// file is missing or damaged), so that it is never served again.
func (s *Store) SetModelBroken(ctx context.Context, id, reason string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ?, error = ? WHERE id = ? AND state = ?`, ModelFailed, reason, id, ModelReady)
	return err
}

// SetModelState sets a model's state.
func (s *Store) SetModelState(ctx context.Context, id, state string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ? WHERE id = ?`, state, id)
	return err
}

// DeleteModel removes a model row, its cached maps and its file; a model
// in training is left alone (ErrModelBusy).
func (s *Store) DeleteModel(ctx context.Context, id string) error {
	m, err := s.Model(ctx, id)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM models WHERE id = ? AND state <> ?`, id, ModelTraining)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("model %q: %w", id, ErrModelBusy)
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

// InterruptOrphanModels marks models still "training" whose job is not queued or
// running as interrupted (their process died), and removes the model files
// no model names: a training killed between its file's rename and the
// write that records it left the file beside an interrupted model, which
// its restart writes anew (the crash test found one in 30 kills).
func (s *Store) InterruptOrphanModels(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `UPDATE models SET state = ? WHERE state = ? AND
		job_id NOT IN (SELECT id FROM jobs WHERE state IN (?, ?))`, ModelInterrupted, ModelTraining, JobQueued, JobRunning)
	if err != nil {
		return err
	}
	_, err = s.removeOrphanModelFiles(ctx)
	return err
}

// removeOrphanModelFiles removes the .tlm files of the models folder that no
// model's path names, and returns how many it removed. Only the server that
// holds the data folder's lock calls it, at start, before any training.
func (s *Store) removeOrphanModelFiles(ctx context.Context) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM models WHERE path <> ''`)
	if err != nil {
		return 0, err
	}
	named := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			_ = rows.Close()
			return 0, err
		}
		named[filepath.Base(p)] = true
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(filepath.Join(s.dir, "models"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".tlm" || named[e.Name()] {
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, "models", e.Name())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TrainingDemoModel returns the model of the built-in demo corpus that is
// training (queued or running), nil when there is none.
func (s *Store) TrainingDemoModel(ctx context.Context) (*ModelRow, error) {
	cols := "m." + strings.ReplaceAll(modelCols, ", ", ", m.")
	r, err := scanModel(s.db.QueryRowContext(ctx, `SELECT `+cols+` FROM models m JOIN corpora c ON c.id = m.corpus_id
		WHERE c.builtin = 1 AND m.state = ? ORDER BY m.created_at, m.id LIMIT 1`, ModelTraining))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}
