package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

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

func scanJob(sc scanner) (*JobRow, error) {
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
	return s.InsertJobWith(ctx, j, nil)
}

// InsertJobWith stores a new queued job and, in the same transaction, what
// with writes (nil: nothing); when with fails nothing is stored.
func (s *Store) InsertJobWith(ctx context.Context, j *JobRow, with func(*Tx) error) error {
	newRow(&j.ID, &j.CreatedAt, &j.Params)
	j.State = JobQueued
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, target_id, params_json, state, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		j.ID, j.Kind, j.TargetID, string(j.Params), j.State, j.CreatedAt.UnixMilli()); err != nil {
		return err
	}
	if with != nil {
		if err := with(&Tx{tx: tx}); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Tx is the transaction of InsertJobWith: what its with function writes
// through it (the job's model, seed group or evaluation) is stored with the
// job or not at all.
type Tx struct{ tx *sql.Tx }

// InsertModel stores a new model row (insertModel).
func (t *Tx) InsertModel(ctx context.Context, m *ModelRow) error { return insertModel(ctx, t.tx, m) }

// StartModelJob moves model id to "training" under job jobID (startModelJob).
func (t *Tx) StartModelJob(ctx context.Context, id, jobID string) error {
	return startModelJob(ctx, t.tx, id, jobID)
}

// InsertGroup stores a new seed group without members (insertGroup).
func (t *Tx) InsertGroup(ctx context.Context, g *GroupRow) error { return insertGroup(ctx, t.tx, g) }

// AddGroupMember makes model modelID the member of group groupID at
// position pos (addGroupMember).
func (t *Tx) AddGroupMember(ctx context.Context, groupID, modelID string, pos int) error {
	return addGroupMember(ctx, t.tx, groupID, modelID, pos)
}

// InsertEval stores a new evaluation row (insertEval).
func (t *Tx) InsertEval(ctx context.Context, e *EvalRow) error { return insertEval(ctx, t.tx, e) }

// Job returns the job with the given id.
func (s *Store) Job(ctx context.Context, id string) (*JobRow, error) {
	r, err := scanJob(s.db.QueryRowContext(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// Jobs lists jobs, newest first, from the offset-th: at most limit of
// them (0: all); kind "" means every kind. A page reads its rows only (the
// jobs_created indexes hold the order).
func (s *Store) Jobs(ctx context.Context, kind string, limit, offset int) ([]*JobRow, error) {
	q := `SELECT ` + jobCols + ` FROM jobs`
	var args []any
	if kind != "" {
		q += ` WHERE kind = ?`
		args = append(args, kind)
	}
	q += ` ORDER BY created_at DESC, id`
	if limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limit, offset)
	}
	read := func() ([]*JobRow, error) { return queryAll(ctx, s, scanJob, q, args...) }
	if offset > 0 {
		return read()
	}
	// The first page, the one the API answers by default, from memory
	// while nothing was written since (CachedRead); the rows are shared.
	return CachedRead(s, fmt.Sprintf("jobs\x00%s\x00%d", kind, limit), read)
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

// PruneJobs deletes the finished jobs of kind beyond the keep most recently
// finished (in the same millisecond, the last stored counts as the later),
// except those a model or an evaluation still names (their state
// and message are the model's or evaluation's), and returns how many it
// deleted.
func (s *Store) PruneJobs(ctx context.Context, kind string, keep int) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM jobs WHERE kind = ?1 AND state IN (?3, ?4, ?5, ?6)
		AND id NOT IN (SELECT job_id FROM models)
		AND id NOT IN (SELECT job_id FROM evaluations)
		AND id NOT IN (SELECT id FROM jobs WHERE kind = ?1 AND state IN (?3, ?4, ?5, ?6)
			ORDER BY finished_at DESC, rowid DESC LIMIT ?2)`,
		kind, keep, JobDone, JobFailed, JobCancelled, JobInterrupted)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// PruneAllJobs is PruneJobs for every kind in the store.
func (s *Store) PruneAllJobs(ctx context.Context, keep int) (int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT kind FROM jobs`)
	if err != nil {
		return 0, err
	}
	var kinds []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return 0, err
		}
		kinds = append(kinds, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var n int64
	for _, k := range kinds {
		d, err := s.PruneJobs(ctx, k, keep)
		n += d
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
