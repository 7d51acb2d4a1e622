package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// EvalRow is a stored evaluation run.
type EvalRow struct {
	ID        string
	JobID     string
	CorpusID  string
	Request   json.RawMessage
	Report    json.RawMessage // empty until the job is done, and in the rows of Evals
	Reported  bool            // the report exists (Evals leaves it out: use Eval)
	CreatedAt time.Time
}

// InsertEval stores a new evaluation without a report.
func (s *Store) InsertEval(ctx context.Context, e *EvalRow) error {
	return insertEval(ctx, s.db, e)
}

func insertEval(ctx context.Context, db execer, e *EvalRow) error {
	if e.ID == "" {
		e.ID = NewID()
	}
	e.CreatedAt = time.UnixMilli(now())
	_, err := db.ExecContext(ctx, `INSERT INTO evaluations (id, job_id, corpus_id, request_json, created_at) VALUES (?, ?, ?, ?, ?)`,
		e.ID, e.JobID, e.CorpusID, string(e.Request), e.CreatedAt.UnixMilli())
	return err
}

// SetEvalReport stores the finished report.
func (s *Store) SetEvalReport(ctx context.Context, id string, report []byte) error {
	_, err := s.db.ExecContext(ctx, `UPDATE evaluations SET report_json = ? WHERE id = ?`, string(report), id)
	return err
}

const evalCols = `id, job_id, corpus_id, request_json, report_json, created_at`

func scanEval(sc scanner) (*EvalRow, error) {
	var r EvalRow
	var req, rep string
	var c int64
	if err := sc.Scan(&r.ID, &r.JobID, &r.CorpusID, &req, &rep, &c); err != nil {
		return nil, err
	}
	r.Request = json.RawMessage(req)
	if rep != "" {
		r.Report, r.Reported = json.RawMessage(rep), true
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
	// Reports can be large; the lists only need to know whether one exists.
	return queryAll(ctx, s, func(sc scanner) (*EvalRow, error) {
		var r EvalRow
		var req string
		var c int64
		if err := sc.Scan(&r.ID, &r.JobID, &r.CorpusID, &req, &r.Reported, &c); err != nil {
			return nil, err
		}
		r.Request, r.CreatedAt = json.RawMessage(req), time.UnixMilli(c)
		return &r, nil
	}, `SELECT id, job_id, corpus_id, request_json, report_json <> '', created_at FROM evaluations ORDER BY created_at DESC, id`)
}
