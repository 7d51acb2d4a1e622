package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/compare"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

type evalsAPI struct{ s *Server }

// EvalRequest is the body of POST /api/evaluations.
type EvalRequest struct {
	ModelIDs  []string `json:"model_ids"`
	CorpusID  string   `json:"corpus_id"`         // evaluated corpus; default (or equal to) the first model's: within-corpus
	Subset    string   `json:"subset"`            // train|valid|test|oov|all (default test; all for another corpus)
	Protocol  string   `json:"protocol"`          // priming|extended (default priming; the OOV setting is priming only)
	Baselines []string `json:"baselines"`         // names of baselines.Names or ["all"]
	Setting   string   `json:"setting,omitempty"` // within-corpus (default), cross-corpora, incomplete-context, oov
	Missing   string   `json:"missing,omitempty"` // band "10", "10-30" or "30-50" for incomplete-context
	Trials    int      `json:"trials,omitempty"`  // default 3
	// SeedTrials says the models are one training run with several seeds:
	// trial i uses model i, so the report has one "ce" and one "siamese-ce"
	// row with error bars over the seeds (as taglens eval with one model per
	// trial). Trials is then the number of models.
	SeedTrials bool `json:"seed_trials,omitempty"`
}

func (r *EvalRequest) normalize() error {
	if len(r.ModelIDs) == 0 {
		return fmt.Errorf("model_ids: choose at least one trained model")
	}
	if len(r.ModelIDs) > 8 {
		return fmt.Errorf("model_ids: at most 8 models")
	}
	if r.Subset == "" {
		r.Subset = "test"
	}
	switch r.Subset {
	case "train", "valid", "test", "oov", "all":
	default:
		return fmt.Errorf("subset must be train, valid, test, oov or all")
	}
	if r.Protocol == "" {
		r.Protocol = "priming"
	}
	if _, err := eval.ParseProtocol(r.Protocol); err != nil {
		return err
	}
	if r.Setting == "" {
		r.Setting = string(eval.WithinCorpus)
	}
	switch eval.Setting(r.Setting) {
	case eval.WithinCorpus, eval.CrossCorpora:
	case eval.OOVSetting:
		if r.Protocol != "priming" {
			return fmt.Errorf("the OOV setting uses the priming protocol only (paper §6.2.4)")
		}
	case eval.IncompleteContext:
		b, err := eval.ParseBand(r.Missing)
		if err != nil {
			return fmt.Errorf("missing: %v", err)
		}
		if b.IsZero() {
			return fmt.Errorf("missing: the incomplete-context setting needs a band such as 10-30")
		}
	default:
		return fmt.Errorf("setting must be within-corpus, cross-corpora, incomplete-context or oov")
	}
	if r.Missing != "" && eval.Setting(r.Setting) != eval.IncompleteContext {
		return fmt.Errorf("missing applies only to the incomplete-context setting")
	}
	if r.SeedTrials {
		if len(r.ModelIDs) < 2 {
			return fmt.Errorf("seed_trials: choose at least two models (one per seed)")
		}
		if r.Trials != 0 && r.Trials != len(r.ModelIDs) {
			return fmt.Errorf("seed_trials: trials must be the number of models (%d), or 0", len(r.ModelIDs))
		}
		r.Trials = len(r.ModelIDs)
	}
	if r.Trials == 0 {
		r.Trials = 3
	}
	if r.Trials < 1 || r.Trials > 10 {
		return fmt.Errorf("trials must be in 1..10")
	}
	if len(r.Baselines) == 1 && r.Baselines[0] == "all" {
		r.Baselines = append([]string(nil), baselines.Names...)
	}
	var bs []string
	for _, b := range r.Baselines {
		if !slices.Contains(baselines.Names, b) {
			return fmt.Errorf("unknown baseline %q (want %s or all)", b, strings.Join(baselines.Names, ", "))
		}
		if !slices.Contains(bs, b) {
			bs = append(bs, b)
		}
	}
	slices.SortFunc(bs, func(a, b string) int { return slices.Index(baselines.Names, a) - slices.Index(baselines.Names, b) })
	r.Baselines = bs
	return nil
}

// create: POST /api/evaluations → 202 {"evaluation_id","job_id"}.
func (h *evalsAPI) create(c echo.Context) error {
	var req EvalRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	ev, job, err := h.s.createEval(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"evaluation_id": ev.ID, "job_id": job.ID})
}

func (s *Server) createEval(ctx context.Context, req EvalRequest) (*EvalRow, *JobRow, error) {
	if err := req.normalize(); err != nil {
		return nil, nil, httpErr(http.StatusBadRequest, "%v", err)
	}
	for _, id := range req.ModelIDs {
		m, err := s.store.Model(ctx, id)
		if err != nil {
			return nil, nil, notFound(err, "model", id)
		}
		if m.State != ModelReady {
			return nil, nil, httpErr(http.StatusConflict, "model %q is %s, not ready", id, m.State)
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
	other := req.CorpusID != first.CorpusID
	switch eval.Setting(req.Setting) {
	case eval.CrossCorpora:
		if !other {
			return nil, nil, httpErr(http.StatusBadRequest, "the cross-corpora setting evaluates another corpus than the model's: choose corpus_id")
		}
	case eval.WithinCorpus, eval.IncompleteContext:
		if other {
			return nil, nil, httpErr(http.StatusBadRequest, "the %s setting evaluates the model's own corpus; use cross-corpora (or oov) for another corpus", req.Setting)
		}
	}
	if other {
		req.Subset = "all" // another corpus has no split of this model: all its documents
	}
	rj, err := json.Marshal(req)
	if err != nil {
		return nil, nil, err
	}
	ev := &EvalRow{CorpusID: req.CorpusID, Request: rj}
	if err := s.store.InsertEval(ctx, ev); err != nil {
		return nil, nil, err
	}
	job, err := s.jobs.Submit("evaluation", ev.ID, req, func(ctx context.Context, rep *Reporter) error {
		return s.runEval(ctx, rep, ev.ID, req)
	})
	if err != nil {
		return nil, nil, err
	}
	if err := s.store.SetEvalJob(ctx, ev.ID, job.ID); err != nil {
		return nil, nil, err
	}
	ev.JobID = job.ID
	return ev, job, nil
}

// runEval evaluates each model's variants (CE and Siamese-CE, or the four OOV
// variants in the OOV setting) and the requested baselines on the chosen
// documents over req.Trials trials, and stores the report. It follows
// `taglens eval`: trial t has seed t+1, which seeds the evaluation's own
// randomness and the baselines, retrained in every trial on the first model's
// training documents (BaselineSkip says which baselines a setting leaves out,
// with a note in the report).
func (s *Server) runEval(ctx context.Context, rep *Reporter, evalID string, req EvalRequest) error {
	if err := ctx.Err(); err != nil {
		return err // cancelled while queued
	}
	// The request was normalized when it was made: these parse.
	proto, err := eval.ParseProtocol(req.Protocol)
	if err != nil {
		return err
	}
	setting := eval.Setting(req.Setting)
	var band eval.Band
	if setting == eval.IncompleteContext {
		if band, err = eval.ParseBand(req.Missing); err != nil {
			return err
		}
	}
	rep.Progress(0, "loading", "loading models and documents")
	first, firstM, err := s.model(ctx, req.ModelIDs[0])
	if err != nil {
		return err
	}
	trow, err := s.store.Corpus(ctx, first.CorpusID)
	if err != nil {
		return err
	}
	tc, err := s.store.Documents(ctx, first.CorpusID)
	if err != nil {
		return err
	}
	split := trainSplit(trow, tc, firstM.Info().SplitSeed)
	vocab := firstM.Vocabulary()
	report := &eval.Report{Corpus: trow.Name, Subset: req.Subset, Protocol: string(proto), Trials: req.Trials,
		Setting: setting, Interpolation: eval.Interpolation, Missing: band.String()}

	cross := req.CorpusID != first.CorpusID
	enc, oovDocs, err := s.evalDocuments(ctx, req, cross, tc, split, vocab, report)
	if err != nil {
		return err
	}

	// The entries of the report: baselines in report order, then each model's variants.
	plan := &compare.Plan{Protocol: proto, Missing: band, VocabSize: vocab.Len(), Trials: req.Trials,
		Baseline: baselines.Settings{Topics: firstM.Topics().NumTopics(), Hidden: firstM.CEDim()}}
	scope := baselines.Scope{Protocol: proto, Subset: req.Subset, Cross: cross, OOV: setting == eval.OOVSetting, Missing: band}
	report.Notes = append(report.Notes, plan.AddBaselines(req.Baselines, scope)...)
	ms, rows, err := s.evalModels(ctx, req.ModelIDs, setting, vocab, first)
	if err != nil {
		return err
	}
	plan.Entries = append(plan.Entries, variantEntries(ms, rows, setting, req.SeedTrials)...)
	if len(plan.Entries) == 0 {
		return fmt.Errorf("no model left to evaluate: %s", strings.Join(report.Notes, "; "))
	}

	train := vocab.EncodeAll(tc.Select(split.Train))
	plan.Trial = func(t int) (*compare.Trial, error) {
		return &compare.Trial{Seed: uint64(t + 1), Train: train, Docs: enc, OOVDocs: oovDocs}, nil
	}
	plan.Progress = evalProgress(rep)
	if err := compare.Run(ctx, plan, report); err != nil {
		return err
	}
	entries := plan.Entries
	b, err := json.Marshal(report)
	if err != nil {
		return err
	}
	if err := s.store.SetEvalReport(context.WithoutCancel(ctx), evalID, b); err != nil {
		return err
	}
	rep.Progress(1, "done", fmt.Sprintf("%d models × %d trials on %d documents", len(entries), req.Trials, max(len(enc), len(oovDocs))))
	return nil
}

// evalDocuments returns the evaluated documents of req, encoded against vocab
// (enc), or in the OOV setting those with out-of-vocabulary terms (oovDocs);
// tc is the first model's corpus and split its split. It adds to the report
// the evaluated corpus when another one (cross) and a note on the documents
// left out.
func (s *Server) evalDocuments(ctx context.Context, req EvalRequest, cross bool, tc *corpus.Corpus, split corpus.Split, vocab *corpus.Vocabulary, report *eval.Report) ([][]int, []eval.OOVDoc, error) {
	setting := eval.Setting(req.Setting)
	var ec *corpus.Corpus // the other evaluated corpus, if any
	if cross {
		var err error
		if ec, err = s.store.Documents(ctx, req.CorpusID); err != nil {
			return nil, nil, err
		}
		report.EvalCorpus = ec.Name
	}
	// With no reserved OOV documents, the OOV setting takes every document with
	// a term outside the vocabulary (as taglens eval without a split file).
	docs := compare.SelectDocs(tc, ec, split, req.Subset, setting == eval.OOVSetting)
	name := tc.Name
	if ec != nil {
		name = ec.Name
	}
	enc, oovDocs, note := compare.EncodeDocs(vocab, docs, setting, name)
	if setting == eval.OOVSetting && len(oovDocs) == 0 {
		return nil, nil, fmt.Errorf("no evaluated document has an out-of-vocabulary tag (%d documents checked)", len(docs))
	}
	if note != "" {
		report.Notes = append(report.Notes, note)
	}
	if len(enc) == 0 && len(oovDocs) == 0 {
		return nil, nil, fmt.Errorf("no document to evaluate")
	}
	return enc, oovDocs, nil
}

// evalModels loads the models of ids. Outside the OOV setting they must all
// have the vocabulary vocab of the first one.
func (s *Server) evalModels(ctx context.Context, ids []string, setting eval.Setting, vocab *corpus.Vocabulary, first *ModelRow) ([]*ce.Model, []*ModelRow, error) {
	var ms []*ce.Model
	var rows []*ModelRow
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

// variantEntries returns the report entries of the models' variants: with
// seedTrials one entry per variant whose trial t is ms[t], otherwise one per
// model and variant (named after the model when there are several).
func variantEntries(ms []*ce.Model, rows []*ModelRow, setting eval.Setting, seedTrials bool) []compare.Entry {
	oov := setting == eval.OOVSetting
	variants := []string{ce.VariantCE, ce.VariantSiamese}
	if oov {
		variants = ce.OOVVariants
	}
	// tuning records which model a contextual variant came from (nothing for
	// the OOV variants).
	tuning := func(rows []*ModelRow, ms []*ce.Model) func(i int) map[string]any {
		if oov {
			return nil
		}
		return func(i int) map[string]any {
			return map[string]any{"model": rows[i].Name, "train_seed": ms[i].Info().Seed}
		}
	}
	if seedTrials {
		return compare.VariantEntries(variants, oov, ms, tuning(rows, ms), "")
	}
	var entries []compare.Entry
	for i := range ms {
		suffix := ""
		if len(ms) > 1 {
			suffix = " (" + rows[i].Name + ")"
		}
		one := i + 1
		entries = append(entries, compare.VariantEntries(variants, oov, ms[i:one], tuning(rows[i:one], ms[i:one]), suffix)...)
	}
	return entries
}

// evalProgress returns the progress callback of an evaluation's comparison,
// which reports the training of baselines and the evaluation of each entry.
func evalProgress(rep *Reporter) func(compare.Event) {
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
		state := JobDone
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
	if j.State == JobFailed || j.State == JobCancelled || j.State == JobInterrupted {
		return httpErr(http.StatusConflict, "evaluation %q has no report: its job %s (%s)", id, j.State, j.Message)
	}
	return c.JSON(http.StatusAccepted, toJobJSON(j, eta))
}
