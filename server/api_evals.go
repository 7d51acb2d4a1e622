package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

type evalsAPI struct{ s *Server }

// EvalRequest is the body of POST /api/evaluations.
type EvalRequest struct {
	ModelIDs  []string `json:"model_ids"`
	CorpusID  string   `json:"corpus_id"`
	Subset    string   `json:"subset"`            // train|valid|test|oov|all (default test)
	Protocol  string   `json:"protocol"`          // priming|extended (default priming)
	Baselines []string `json:"baselines"`         // baseline names or ["all"]
	Setting   string   `json:"setting,omitempty"` // within-corpus (default), cross-corpora, incomplete-context, oov
	Missing   string   `json:"missing,omitempty"` // band "10-30" for incomplete-context
	Trials    int      `json:"trials,omitempty"`  // default 3
}

// serverBaselines are the baselines the server can train for a comparison.
var serverBaselines = []string{"random", "lsa", "pca", "lda", "plsa"}

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
	case eval.WithinCorpus, eval.CrossCorpora, eval.OOVSetting:
	case eval.IncompleteContext:
		if _, err := eval.ParseBand(r.Missing); err != nil {
			return fmt.Errorf("missing: %v", err)
		}
	default:
		return fmt.Errorf("setting must be within-corpus, cross-corpora, incomplete-context or oov")
	}
	if r.Trials == 0 {
		r.Trials = 3
	}
	if r.Trials < 1 || r.Trials > 10 {
		return fmt.Errorf("trials must be in 1..10")
	}
	if len(r.Baselines) == 1 && r.Baselines[0] == "all" {
		r.Baselines = append([]string(nil), serverBaselines...)
	}
	for _, b := range r.Baselines {
		if !contains(serverBaselines, b) {
			return fmt.Errorf("unknown baseline %q (this server offers %s)", b, strings.Join(serverBaselines, ", "))
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
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
	rj, _ := json.Marshal(req)
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

// runEval evaluates each model's CE and Siamese-CE variants and the requested
// baselines on the chosen documents, over req.Trials seeds, and stores the report.
// Baselines are fitted on the first model's training documents.
func (s *Server) runEval(ctx context.Context, rep *Reporter, evalID string, req EvalRequest) error {
	proto, _ := eval.ParseProtocol(req.Protocol)
	var band eval.Band
	if req.Setting == string(eval.IncompleteContext) {
		band, _ = eval.ParseBand(req.Missing)
	}
	type entry struct {
		name string
		m    eval.Model
		oov  eval.OOVModel
	}
	var entries []entry
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
	split := trainSplit(trow, tc, first.Seed)
	vocab := firstM.Vocabulary()

	// The evaluated documents.
	ec := tc
	if req.CorpusID != first.CorpusID {
		if ec, err = s.store.Documents(ctx, req.CorpusID); err != nil {
			return err
		}
	}
	var docs []corpus.Document
	switch {
	case req.CorpusID != first.CorpusID || req.Subset == "all":
		docs = ec.Docs
	default:
		docs = tc.Select(split.Of(corpus.Subset(req.Subset)))
	}
	var enc [][]int
	var oovDocs []eval.OOVDoc
	switch eval.Setting(req.Setting) {
	case eval.CrossCorpora:
		enc, _ = eval.InVocabulary(vocab, docs)
	case eval.OOVSetting:
		oovDocs, _ = eval.WithOOV(vocab, docs)
		if len(oovDocs) == 0 {
			return fmt.Errorf("no document of the %s subset has an out-of-vocabulary tag", req.Subset)
		}
	default:
		enc = eval.Encode(vocab, docs)
	}
	if enc == nil && oovDocs == nil {
		return fmt.Errorf("no document to evaluate")
	}

	multi := len(req.ModelIDs) > 1
	for _, id := range req.ModelIDs {
		row, m, err := s.model(ctx, id)
		if err != nil {
			return err
		}
		suffix := ""
		if multi {
			suffix = " (" + row.Name + ")"
		}
		if oovDocs != nil {
			for _, n := range []string{"ce-feature", "siamese-ce-feature", "ce-avg", "siamese-ce-avg"} {
				om, err := m.OOVEvalModel(n, oovDocs)
				if err != nil {
					return err
				}
				entries = append(entries, entry{name: n + suffix, oov: om})
			}
			continue
		}
		if row.CorpusID != first.CorpusID || m.Vocabulary().Len() != vocab.Len() {
			return fmt.Errorf("model %q was trained on another vocabulary than %q; compare models of one corpus", row.Name, first.Name)
		}
		entries = append(entries, entry{name: ce.VariantCE + suffix, m: m.EvalModel(ce.VariantCE)},
			entry{name: ce.VariantSiamese + suffix, m: m.EvalModel(ce.VariantSiamese)})
	}
	if oovDocs == nil {
		train := vocab.EncodeAll(tc.Select(split.Train))
		v := vocab.Len()
		for i, b := range req.Baselines {
			rep.Progress(0.05+0.25*float64(i)/float64(len(req.Baselines)), "baselines", "fitting "+b)
			var bm eval.Model
			switch b {
			case "random":
				bm = baselines.NewRandom(v)
			case "lsa":
				bm, err = baselines.FitLSA(train, v, nil)
			case "pca":
				bm, err = baselines.FitPCA(train, v, nil)
			case "lda":
				bm = baselines.NewLDA(firstM.Topics())
			case "plsa":
				bm, err = baselines.TrainPLSA(ctx, train, v, firstM.Topics().NumTopics(), first.Seed, nil)
			}
			if err != nil {
				return fmt.Errorf("baseline %s: %w", b, err)
			}
			if proto == eval.Priming && !bm.Contextual() {
				continue // §6.2.5: non-contextual models only in the extended protocol
			}
			entries = append(entries, entry{name: b, m: bm})
		}
	}

	report := &eval.Report{Corpus: trow.Name, Subset: req.Subset, Protocol: string(proto), Trials: req.Trials,
		Setting: eval.Setting(req.Setting), Interpolation: eval.Interpolation}
	if req.CorpusID != first.CorpusID {
		report.EvalCorpus = ec.Name
	}
	if !band.IsZero() {
		report.Missing = band.String()
	}
	seeds := make([]uint64, req.Trials)
	for t := range seeds {
		seeds[t] = uint64(t + 1)
	}
	report.Seeds = seeds
	total := len(entries) * req.Trials
	done := 0
	for _, e := range entries {
		results := make([]*eval.Result, req.Trials)
		for t, seed := range seeds {
			msg := fmt.Sprintf("%s, trial %d/%d", e.name, t+1, req.Trials)
			rep.Progress(0.3+0.7*float64(done)/float64(total), "evaluating", msg)
			opt := &eval.Options{Seed: seed, Missing: band}
			var r *eval.Result
			var err error
			if e.oov != nil {
				r, err = eval.EvaluateOOV(ctx, e.oov, oovDocs, opt)
			} else {
				r, err = eval.Evaluate(ctx, e.m, proto, enc, opt)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			results[t] = r
			done++
		}
		report.Models = append(report.Models, eval.Summarize(e.name, results, seeds))
	}
	report.ComputePValues()
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
