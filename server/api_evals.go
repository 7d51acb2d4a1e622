package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/compare"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

type evalsAPI struct{ s *Server }

// evalRequest is the body of POST /api/evaluations.
type evalRequest struct {
	ModelIDs  []string `json:"model_ids"`
	CorpusID  string   `json:"corpus_id"`         // evaluated corpus; default (or equal to) the first model's: within-corpus
	Subset    string   `json:"subset"`            // train|valid|test|oov|all (default test; all for another corpus)
	Protocol  string   `json:"protocol"`          // priming|extended|completion (default priming; the OOV setting is priming only)
	Baselines []string `json:"baselines"`         // names of baselines.Names or ["all"]
	Setting   string   `json:"setting,omitempty"` // within-corpus (default), cross-corpora, incomplete-context, oov
	Missing   string   `json:"missing,omitempty"` // band "10", "10-30" or "30-50" for incomplete-context
	Trials    int      `json:"trials,omitempty"`  // default 3
	Sample    int      `json:"sample,omitempty"`  // documents sampled in each trial; 0 (the default): a sample only above app.DefaultRankBudget; -1: all
	// SeedTrials says the models are one training run with several seeds:
	// trial i uses model i, so the report has one "ce" and one "siamese-ce"
	// row with error bars over the seeds (as taglens eval with one model per
	// trial). Trials is then the number of models.
	SeedTrials bool `json:"seed_trials,omitempty"`
	// AllBaselines records that Baselines was ["all"] (app.EvalSpec), which
	// normalize expands into the names.
	AllBaselines bool `json:"all_baselines,omitempty"`

	trialsGiven bool // Trials was given, even as 0 (the JSON body's)
}

// The web app's caps of an evaluation.
const (
	maxEvalModels = 8
	maxEvalTrials = 10
)

// input is the request as an evaluation's input (app.EvalInput, whose
// Normalize is the one check of it): lenient, as the compare form keeps every
// field when its setting changes, and capped.
func (r *evalRequest) input() app.EvalInput {
	in := app.EvalInput{Models: len(r.ModelIDs), SeedTrials: r.SeedTrials, Subset: r.Subset, Protocol: r.Protocol,
		Setting: r.Setting, Missing: r.Missing, Baselines: r.Baselines, Lenient: true,
		MaxModels: maxEvalModels, MaxTrials: maxEvalTrials, Sample: r.Sample}
	if r.Trials != 0 || r.trialsGiven {
		trials := r.Trials
		in.Trials = &trials
	}
	return in
}

// normalize checks the request (a 400 naming the field) and sets its
// defaults, and returns its spec.
func (r *evalRequest) normalize() (*app.EvalSpec, error) {
	spec, err := r.input().Normalize()
	if err != nil {
		return nil, err
	}
	r.Subset, r.Protocol, r.Setting = spec.Subset, string(spec.Protocol), string(spec.Setting)
	r.Trials, r.Baselines = spec.Trials, spec.Baselines
	r.AllBaselines = r.AllBaselines || spec.AllBaselines
	return spec, nil
}

// evalBody is the JSON body of POST /api/evaluations: an evalRequest whose
// trials tells an omitted field (the default) from a 0 (refused).
type evalBody struct {
	evalRequest
	Trials *int `json:"trials"`
}

// create: POST /api/evaluations → 202 {"evaluation_id","job_id"}.
func (h *evalsAPI) create(c echo.Context) error {
	var body evalBody
	if err := bindJSON(c, &body); err != nil {
		return err
	}
	req := body.evalRequest
	if body.Trials != nil {
		req.Trials, req.trialsGiven = *body.Trials, true
	}
	ev, job, err := h.s.createEval(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"evaluation_id": ev.ID, "job_id": job.ID})
}

func (s *Server) createEval(ctx context.Context, req evalRequest) (*store.EvalRow, *store.JobRow, error) {
	spec, err := req.normalize()
	if err != nil {
		return nil, nil, err
	}
	for _, id := range req.ModelIDs {
		m, err := s.store.Model(ctx, id)
		if err != nil {
			return nil, nil, notFound(err, "model", id)
		}
		if m.State != store.ModelReady {
			return nil, nil, app.Conflict("model %q is %s, not ready", id, m.State)
		}
		if req.CorpusID == "" {
			req.CorpusID = m.CorpusID
		}
	}
	if _, err := s.store.Corpus(ctx, req.CorpusID); err != nil {
		return nil, nil, notFound(err, "corpus", req.CorpusID)
	}
	first, err := s.store.Model(ctx, req.ModelIDs[0])
	if err != nil {
		return nil, nil, notFound(err, "model", req.ModelIDs[0])
	}
	// Another corpus has no split of the models: all its documents.
	if err := spec.CheckCorpus(req.CorpusID != first.CorpusID); err != nil {
		return nil, nil, err
	}
	req.Subset = spec.Subset
	rj, err := json.Marshal(req)
	if err != nil {
		return nil, nil, err
	}
	// The evaluation is stored with its job in one transaction: nothing is
	// stored when the job is refused (a full queue).
	ev := &store.EvalRow{ID: store.NewID(), CorpusID: req.CorpusID, Request: rj}
	job, err := s.jobs.SubmitWith("evaluation", ev.ID, req, func(ctx context.Context, rep *jobs.Reporter) error {
		return s.runEval(ctx, rep, ev.ID, req)
	}, func(tx *store.Tx, job *store.JobRow) error {
		ev.JobID = job.ID
		return tx.InsertEval(ctx, ev)
	})
	if err != nil {
		return nil, nil, err
	}
	return ev, job, nil
}

// runEval evaluates each model's variants (CE and Siamese-CE, or the four OOV
// variants in the OOV setting) and the requested baselines on the chosen
// documents over req.Trials trials (app.Evaluate, as taglens eval), and stores
// the report: trial t has seed t+1, which seeds the evaluation's own
// randomness and the baselines, retrained in every trial on the first model's
// training documents (compare.Plan.AddBaselines says which baselines a setting leaves out,
// with a note in the report).
func (s *Server) runEval(ctx context.Context, rep *jobs.Reporter, evalID string, req evalRequest) error {
	if err := ctx.Err(); err != nil {
		return err // cancelled while queued
	}
	// The request was normalized when it was made: it passes again.
	spec, err := req.input().Normalize()
	if err != nil {
		return err
	}
	setting := spec.Setting
	rep.Progress(0, "loading", "loading models and documents")
	first, firstM, err := s.model(ctx, req.ModelIDs[0])
	if err != nil {
		return err
	}
	trow, err := s.store.CorpusWithSplit(ctx, first.CorpusID)
	if err != nil {
		return err
	}
	tc, err := s.store.Documents(ctx, first.CorpusID)
	if err != nil {
		return err
	}
	ev := &app.Evaluation{Corpus: tc, Subset: req.Subset, Protocol: spec.Protocol, Setting: setting, Missing: spec.Missing,
		Trials: spec.Trials, Sample: spec.Sample, Seed: 1, Baselines: spec.Baselines, AllBaselines: req.AllBaselines,
		// Every trial uses the first model's split; with no reserved OOV
		// documents, the OOV setting takes every document with a term outside
		// the vocabulary (as taglens eval without a split file).
		Split:         func(*ce.Model) (corpus.Split, error) { return app.TrainedSplit(firstM, tc, ownSplit(trow), nil) },
		AllWithoutOOV: setting == eval.OOVSetting, Progress: evalProgress(rep)}
	if req.CorpusID != first.CorpusID {
		if ev.Cross, err = s.store.Documents(ctx, req.CorpusID); err != nil {
			return err
		}
	}
	var docs int
	var docNote string
	ev.Docs = func(_, n int, note string) { docs, docNote = n, note }
	var rows []*store.ModelRow
	if ev.Models, rows, err = s.evalModels(ctx, req.ModelIDs, setting, firstM.Vocabulary(), first); err != nil {
		return err
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Name
	}
	ev.Variants = app.ModelEntries(spec.Variants, setting == eval.OOVSetting, ev.Models, names, req.SeedTrials)
	report, err := app.Evaluate(ctx, ev)
	var noDocs *app.NoDocsError
	switch {
	case errors.As(err, &noDocs) && setting == eval.OOVSetting:
		return fmt.Errorf("no evaluated document has an out-of-vocabulary tag (%d documents checked)", noDocs.Checked)
	case errors.As(err, &noDocs):
		return fmt.Errorf("no document to evaluate")
	case err != nil:
		return err
	}
	if docNote != "" { // the note on the documents left out comes first
		report.Notes = append([]string{docNote}, report.Notes...)
	}
	b, err := json.Marshal(report)
	if err != nil {
		return err
	}
	if err := s.store.SetEvalReport(context.WithoutCancel(ctx), evalID, b); err != nil {
		return err
	}
	rep.Progress(1, "done", fmt.Sprintf("%d models × %d trials on %d documents", len(report.Models), req.Trials, docs))
	return nil
}

// evalModels loads the models of ids. Outside the OOV setting they must all
// have the vocabulary vocab of the first one.
func (s *Server) evalModels(ctx context.Context, ids []string, setting eval.Setting, vocab *corpus.Vocabulary, first *store.ModelRow) ([]*ce.Model, []*store.ModelRow, error) {
	var ms []*ce.Model
	var rows []*store.ModelRow
	for _, id := range ids {
		row, m, err := s.model(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if setting != eval.OOVSetting && !slices.Equal(m.Vocabulary().Terms(), vocab.Terms()) {
			return nil, nil, fmt.Errorf("model %q was trained on another vocabulary than %q; compare models of one corpus", row.Name, first.Name)
		}
		ms, rows = append(ms, m), append(rows, row)
	}
	return ms, rows, nil
}

// evalProgress returns the progress callback of an evaluation's comparison,
// which reports the training of baselines and the evaluation of each entry.
func evalProgress(rep *jobs.Reporter) func(compare.Event) {
	return func(e compare.Event) {
		label := fmt.Sprintf("%s, trial %d/%d", e.Entry, e.Trial+1, e.Trials)
		frac := 0.02 + 0.97*e.Fraction()
		switch e.Stage {
		case "training baseline":
			rep.Progress(frac, e.Stage, label+": "+e.Message)
		case "evaluating":
			rep.Progress(frac, e.Stage, label)
		}
	}
}

type evalJSON struct {
	ID        string          `json:"id"`
	JobID     string          `json:"job_id"`
	CorpusID  string          `json:"corpus_id"`
	State     string          `json:"state"`
	Request   json.RawMessage `json:"request"`
	CreatedAt string          `json:"created_at"`
}

func (h *evalsAPI) list(c echo.Context) error {
	rows, err := h.s.store.Evals(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]evalJSON, 0, len(rows))
	for _, r := range rows {
		state := store.JobDone
		if j, _, err := h.s.jobs.Get(c.Request().Context(), r.JobID); err == nil {
			state = j.State
		}
		out = append(out, evalJSON{ID: r.ID, JobID: r.JobID, CorpusID: r.CorpusID, State: state, Request: r.Request,
			CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339)})
	}
	return c.JSON(http.StatusOK, out)
}

// get: GET /api/evaluations/:id → the eval report JSON; 202 with the job while it runs.
func (h *evalsAPI) get(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	r, err := h.s.store.Eval(ctx, id)
	if err != nil {
		return notFound(err, "evaluation", id)
	}
	if len(r.Report) > 0 {
		return c.JSONBlob(http.StatusOK, r.Report)
	}
	j, eta, err := h.s.jobs.Get(ctx, r.JobID)
	if err != nil {
		return err
	}
	if j.State == store.JobFailed || j.State == store.JobCancelled || j.State == store.JobInterrupted {
		return app.Conflict("evaluation %q has no report: its job %s (%s)", id, j.State, j.Message)
	}
	return c.JSON(http.StatusAccepted, toJobJSON(j, eta))
}
