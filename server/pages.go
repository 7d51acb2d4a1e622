package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/baselines"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/views"
)

// pages renders the HTML pages; all data comes from the same store and helpers
// as the JSON API.
type pages struct{ s *Server }

func fmtTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

func fmtSize(n int64) string {
	switch {
	case n <= 0:
		return "—"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func corpusVM(r *CorpusRow) views.Corpus {
	format := r.Format
	if format == "" {
		format = "built-in"
	}
	return views.Corpus{ID: r.ID, Name: r.Name, Format: format, Detected: r.Detected, Created: fmtTime(r.CreatedAt), Docs: r.Docs, Tags: r.Tags, Builtin: r.Builtin}
}

func (p *pages) corpusVMs(c echo.Context) ([]views.Corpus, map[string]string, error) {
	rows, err := p.s.store.Corpora(c.Request().Context())
	if err != nil {
		return nil, nil, err
	}
	out := make([]views.Corpus, len(rows))
	names := map[string]string{}
	for i, r := range rows {
		out[i] = corpusVM(r)
		names[r.ID] = r.Name
	}
	return out, names, nil
}

func (p *pages) modelVMs(c echo.Context) ([]views.Model, error) {
	rows, err := p.s.store.Models(c.Request().Context())
	if err != nil {
		return nil, err
	}
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return nil, err
	}
	out := make([]views.Model, len(rows))
	for i, r := range rows {
		out[i] = p.modelVM(c, r, names)
	}
	return out, nil
}

func (p *pages) modelVM(c echo.Context, r *ModelRow, names map[string]string) views.Model {
	vm := views.Model{ID: r.ID, Name: r.Name, CorpusID: r.CorpusID, CorpusName: names[r.CorpusID], State: r.State,
		Created: fmtTime(r.CreatedAt), Size: fmtSize(r.Size), JobID: r.JobID, Error: r.Error}
	if vm.CorpusName == "" {
		vm.CorpusName = "(deleted)"
	}
	if r.JobID != "" {
		if j, _, err := p.s.jobs.Get(c.Request().Context(), r.JobID); err == nil {
			vm.JobState = j.State
		}
	}
	return vm
}

func jobVM(j *JobRow, eta float64, chartID, doneURL string) *views.Job {
	return &views.Job{ID: j.ID, Kind: j.Kind, State: j.State, Stage: j.Stage, Message: j.Message, Progress: j.Progress,
		ETA: eta, ChartID: chartID, DoneURL: doneURL}
}

func (p *pages) home(c echo.Context) error {
	ctx := c.Request().Context()
	cs, err := p.s.store.Corpora(ctx)
	if err != nil {
		return err
	}
	ms, err := p.s.store.Models(ctx)
	if err != nil {
		return err
	}
	es, err := p.s.store.Evals(ctx)
	if err != nil {
		return err
	}
	vm := views.HomePage{Corpora: len(cs), Models: len(ms), Evals: len(es)}
	for _, m := range ms {
		if m.State == ModelReady && vm.DemoModelID == "" {
			vm.DemoModelID, vm.DemoReady = m.ID, true
		}
	}
	if vm.DemoReady {
		if vm.Verdict, err = p.s.demoVerdict(ctx, vm.DemoModelID); err != nil {
			return err
		}
	}
	jobs, err := p.s.store.Jobs(ctx, "")
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if live, eta, err := p.s.jobs.Get(ctx, j.ID); err == nil && !live.Finished() {
			done := ""
			if live.Kind == "train" {
				done = "/models/" + live.TargetID
			}
			vm.Jobs = append(vm.Jobs, *jobVM(live, eta, "", done))
		}
	}
	return render(c, http.StatusOK, views.HomePageView(vm))
}

func (p *pages) corpora(c echo.Context) error {
	cs, _, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.CorporaPageView(views.CorporaPage{Corpora: cs, MaxUpload: fmtSize(p.s.cfg.MaxUpload)}))
}

// upload: POST /corpora — the htmx upload form; answers a fragment (or, without
// htmx, redirects to the new corpus).
func (p *pages) upload(c echo.Context) error {
	row, err := p.s.uploadCorpus(c)
	if err != nil {
		var he *echo.HTTPError
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			err = httpErr(http.StatusRequestEntityTooLarge, "upload too large: the limit is %s", fmtSize(mb.Limit))
		}
		if errors.As(err, &he) && c.Request().Header.Get("HX-Request") == "true" {
			c.Response().Header().Set("X-Status", strconv.Itoa(he.Code))
			return render(c, http.StatusOK, views.ErrorBox(fmt.Sprint(he.Message)))
		}
		return err
	}
	if c.Request().Header.Get("HX-Request") != "true" {
		return c.Redirect(http.StatusSeeOther, "/corpora/"+row.ID)
	}
	all, _, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.UploadOK(corpusVM(row), all))
}

// deleteCorpus: DELETE /corpora/:id from the corpus page's button (htmx, with
// the page's CSRF token). Deleted, htmx goes to the list (HX-Redirect); refused
// (a model uses the corpus), the error handler answers an error box that htmx
// swaps into the page.
func (p *pages) deleteCorpus(c echo.Context) error {
	if err := p.s.deleteCorpus(context0(c), c.Param("id")); err != nil {
		return err
	}
	c.Response().Header().Set("HX-Redirect", "/corpora")
	return c.NoContent(http.StatusNoContent)
}

func (p *pages) corpus(c echo.Context) error {
	id := c.Param("id")
	r, err := p.s.store.Corpus(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "corpus", id)
	}
	top := r.Stats.TagCounts
	if len(top) > 60 {
		top = top[:60]
	}
	vm := views.CorpusPage{Corpus: corpusVM(r), MeanTags: r.Stats.MeanTags,
		TagUse: tagUseChart("taguse", r.Stats.TagCounts), Cardinality: cardinalityChart("cardinality", r.Stats.Cardinality)}
	for _, t := range top {
		vm.TopTags = append(vm.TopTags, views.TagCount{Tag: t.Tag, Count: t.Count})
	}
	if len(r.Split.Train) > 0 {
		vm.Split = fmt.Sprintf("the corpus's own: %d train, %d valid, %d test, %d OOV documents", len(r.Split.Train), len(r.Split.Valid), len(r.Split.Test), len(r.Split.OOV))
	} else {
		vm.Split = "none given; training draws a seeded random split (2/3 train, a validation set, the rest test)"
	}
	return render(c, http.StatusOK, views.CorpusPageView(vm))
}

// trainParamsHelp documents the training form; defaults are ce.Config's.
var trainParamsHelp = []views.Param{
	{Name: "max_time_seconds", Label: "Time limit (s)", Value: "none", Type: "number", Help: "Optional wall-clock limit of the whole training; empty = none. Without a limit training stops by early stopping and the epoch limits, so the same seed gives the same model on any machine; with one, a stage cut short keeps its best weights and the model depends on the machine's speed."},
	{Name: "hidden", Label: "Hidden layers", Value: "auto", Type: "text", Help: "Widths of the tanh layers; the last is the CE dimension. Empty = the paper's 100,100,10, or 100,100,50 above 1,000 terms."},
	{Name: "topics", Label: "LDA topics", Value: "auto", Type: "number", Help: "Topics of the local context l(τ|δ) (Eq. 3); empty = chosen by held-out perplexity."},
	{Name: "batch_size", Label: "Batch size", Value: "100", Type: "number", Help: "Mini-batch size of stage 1 (examples) and stage 2 (pairs)."},
	{Name: "learning_rate", Label: "Learning rate", Value: "0.05", Type: "number", Help: "Initial SGD step, decayed ×0.95 every epoch."},
	{Name: "max_epochs1", Label: "Max epochs, stage 1", Value: "30", Type: "number", Help: "Prediction learning (Eq. 5); early stopping on the validation criterion below."},
	{Name: "max_epochs2", Label: "Max epochs, stage 2", Value: "auto", Type: "number", Help: "Siamese distance learning (Eq. 6-7); empty = 30 up to 1,000 terms, 20 above."},
	{Name: "early_stop", Label: "Early stopping on", Value: ce.DefaultEarlyStop, Options: []string{ce.EarlyStopMAP, ce.EarlyStopP2},
		Help: "Validation criterion that picks the kept weights, the pilots' α, λ and κ, and stops each stage: extended-priming MAP (the default, chosen on the development suite's validation subsets) or priming P@2."},
	{Name: "patience", Label: "Patience", Value: "auto", Type: "number", Help: "Validation checks without a new best before a stage stops; empty = 10 up to 1,000 terms (epochs are cheap there and validation MAP climbs in steps), 6 above."},
	{Name: "kappa", Label: "Class weights of Eq. 5", Value: ce.DefaultKappa, Options: ce.Kappas,
		Help: "balanced-stage2 (the default): Eq. 5 as printed (present entries κ, absent 1−κ) in stage 1, balanced (present 1−κ, absent κ) in stage 2; printed: as printed in both stages; balanced: balanced in both."},
	{Name: "epoch_examples", Label: "Examples per epoch", Value: "120000", Type: "number", Help: "Examples (stage 1) or pairs (stage 2) per epoch, the period between validation checks: a random part of one pass on a large corpus, several passes on a small one."},
	{Name: "alpha", Label: "α (Eq. 7)", Value: "auto", Type: "number", Help: "Trade-off of prediction and distance loss; empty = chosen by pilot runs on the validation criterion."},
	{Name: "lambda", Label: "λ (Eq. 6)", Value: "auto", Type: "number", Help: "Sensitivity of the context similarity D = exp(−λ/2·KL_sym)."},
}

func (p *pages) train(c echo.Context) error {
	cs, _, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	ms, err := p.modelVMs(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.TrainPageView(views.TrainPage{Corpora: cs, CorpusID: c.QueryParam("corpus"), Params: trainParamsHelp, Models: ms}))
}

// startTraining: POST /train (form) → redirect to the model page with live progress.
func (p *pages) startTraining(c echo.Context) error {
	req := createModelReq{CorpusID: c.FormValue("corpus_id"), Name: c.FormValue("name")}
	if v := strings.TrimSpace(c.FormValue("seed")); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return httpErr(http.StatusBadRequest, "seed must be a non-negative integer")
		}
		req.Seed = &seed
	}
	var tp TrainParams
	var err error
	geti := func(name string) int {
		v := strings.TrimSpace(c.FormValue(name))
		if v == "" || err != nil {
			return 0
		}
		n, e := strconv.Atoi(v)
		if e != nil {
			err = fmt.Errorf("%s must be an integer", name)
		}
		return n
	}
	getf := func(name string) float64 {
		v := strings.TrimSpace(c.FormValue(name))
		if v == "" || err != nil {
			return 0
		}
		f, e := strconv.ParseFloat(v, 64)
		if e != nil {
			err = fmt.Errorf("%s must be a number", name)
		}
		return f
	}
	tp.MaxTimeSeconds = getf("max_time_seconds")
	tp.Topics = geti("topics")
	tp.BatchSize = geti("batch_size")
	tp.LearningRate = getf("learning_rate")
	tp.MaxEpochs1 = geti("max_epochs1")
	tp.MaxEpochs2 = geti("max_epochs2")
	tp.Patience = geti("patience")
	tp.EpochExamples = geti("epoch_examples")
	tp.Alpha = getf("alpha")
	tp.Lambda = getf("lambda")
	tp.EarlyStop = strings.TrimSpace(c.FormValue("early_stop"))
	tp.Kappa = strings.TrimSpace(c.FormValue("kappa"))
	if h := strings.TrimSpace(c.FormValue("hidden")); h != "" && err == nil {
		for _, f := range strings.Split(h, ",") {
			n, e := strconv.Atoi(strings.TrimSpace(f))
			if e != nil {
				err = fmt.Errorf("hidden must be comma-separated integers")
				break
			}
			tp.Hidden = append(tp.Hidden, n)
		}
	}
	if err != nil {
		return httpErr(http.StatusBadRequest, "%v", err)
	}
	req.Params = &tp
	seeds := 1
	if v := strings.TrimSpace(c.FormValue("seeds")); v != "" {
		if seeds, err = strconv.Atoi(v); err != nil || seeds < 1 || seeds > maxSeedGroup {
			return httpErr(http.StatusBadRequest, "seeds must be an integer in 1..%d", maxSeedGroup)
		}
	}
	if seeds == 1 {
		m, _, err := p.s.createModel(c, req)
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, "/models/"+m.ID)
	}
	// A seed group: the same parameters with seeds seed, seed+1, …; the
	// compare page then evaluates them as one model with trials.
	first := uint64(1)
	if req.Seed != nil {
		first = *req.Seed
	}
	name := strings.TrimSpace(req.Name)
	var ids []string
	for k := range seeds {
		r := req
		seed := first + uint64(k)
		r.Seed = &seed
		if name != "" {
			r.Name = fmt.Sprintf("%s · seed %d", name, seed)
		}
		m, _, err := p.s.createModel(c, r)
		if err != nil {
			return err
		}
		ids = append(ids, m.ID)
	}
	return c.Redirect(http.StatusSeeOther, "/compare?seed_trials=1&group="+url.QueryEscape(strings.Join(ids, ",")))
}

// maxSeedGroup bounds the models of one seed group (the train form's "Seeds").
const maxSeedGroup = 10

func (p *pages) models(c echo.Context) error {
	ms, err := p.modelVMs(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ModelsPageView(views.ModelsPage{Models: ms}))
}

func (p *pages) model(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	r, err := p.s.store.Model(ctx, id)
	if err != nil {
		return notFound(err, "model", id)
	}
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	vm := views.ModelPage{Model: p.modelVM(c, r, names), Curve: trainingChart("curve", r.Log)}
	var params map[string]any
	_ = jsonUnmarshal(r.Params, &params)
	vm.Params = kvs(params)
	vm.Params = append([]views.KV{{Key: "seed", Value: fmt.Sprint(r.Seed)}}, vm.Params...)
	if len(params) == 0 {
		vm.Params = append(vm.Params, views.KV{Key: "(all others)", Value: "defaults"})
	}
	var info map[string]any
	_ = jsonUnmarshal(r.Info, &info)
	vm.Info = kvs(info)
	if r.JobID != "" {
		if j, eta, err := p.s.jobs.Get(ctx, r.JobID); err == nil && (!j.Finished() || j.State != JobDone) {
			vm.Job = jobVM(j, eta, "curve", "/models/"+r.ID)
		}
	}
	return render(c, http.StatusOK, views.ModelPageView(vm))
}

func kvs(m map[string]any) []views.KV {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]views.KV, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		var s string
		switch x := v.(type) {
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1e15 {
				s = strconv.FormatFloat(x, 'f', 0, 64)
			} else {
				s = strconv.FormatFloat(x, 'g', 4, 64)
			}
		case string:
			s = x
		default:
			b, _ := json.Marshal(x)
			s = string(b)
		}
		out = append(out, views.KV{Key: k, Value: s})
	}
	return out
}

// readyModels returns the ready models' view models and the one selected by the
// "model" query parameter (default: the newest ready one).
func (p *pages) readyModels(c echo.Context) ([]views.Model, string, error) {
	ms, err := p.modelVMs(c)
	if err != nil {
		return nil, "", err
	}
	var ready []views.Model
	for _, m := range ms {
		if m.State == ModelReady {
			ready = append(ready, m)
		}
	}
	sel := c.QueryParam("model")
	if sel == "" && len(ready) > 0 {
		sel = ready[0].ID
	}
	return ready, sel, nil
}

// spaceView renders the explorer's map of the whole space of the selected model.
func (p *pages) spaceView(c echo.Context, vm views.ExplorerPage) error {
	vm.View = "space"
	vm.Projection = c.QueryParam("projection")
	if vm.Projection != projPCA {
		vm.Projection = projTSNE
	}
	vm.K = 10
	if k, err := strconv.Atoi(c.QueryParam("k")); err == nil && k >= 1 && k <= maxSpaceK {
		vm.K = k
	}
	q := url.Values{}
	q.Set("variant", vm.Variant)
	q.Set("projection", vm.Projection)
	vm.SpaceURL = "/api/models/" + vm.ModelID + "/space?" + q.Encode()
	vm.Map = mapChart("space")
	return render(c, http.StatusOK, views.ExplorerPageView(vm))
}

func (p *pages) explorer(c echo.Context) error {
	ms, sel, err := p.readyModels(c)
	if err != nil {
		return err
	}
	vm := views.ExplorerPage{Models: ms, ModelID: sel, Term: strings.TrimSpace(c.QueryParam("term")),
		Docs: c.QueryParam("docs"), Variant: c.QueryParam("variant"), Color: c.QueryParam("color")}
	if vm.Variant == "" {
		vm.Variant = ce.VariantSiamese
	}
	if sel == "" {
		return render(c, http.StatusOK, views.ExplorerPageView(vm))
	}
	ctx := c.Request().Context()
	row, m, err := p.s.model(ctx, sel)
	if err != nil {
		return notFound(err, "model", sel)
	}
	cs, _, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	vm.Corpora = cs
	vm.CorpusIDs = c.QueryParams()["corpus"]
	if len(vm.CorpusIDs) == 0 {
		vm.CorpusIDs = []string{row.CorpusID}
	}
	if c.QueryParam("view") == "space" {
		return p.spaceView(c, vm)
	}
	vm.ContextDoc = strings.TrimSpace(c.QueryParam("context_doc"))
	vm.ContextDocs = p.s.contextDocs(ctx, row.ID, row.CorpusID, m)
	if vm.ContextDoc != "" {
		q := url.Values{}
		q.Set("doc", vm.ContextDoc)
		q.Set("variant", vm.Variant)
		vm.MapURL = "/api/models/" + sel + "/context-map?" + q.Encode()
		vm.Map = mapChart("map")
		return render(c, http.StatusOK, views.ExplorerPageView(vm))
	}
	if vm.Term == "" {
		// Default: the model corpus's most used tag, so the first visit shows a map.
		if cr, err := p.s.store.Corpus(ctx, row.CorpusID); err == nil && len(cr.Stats.TagCounts) > 0 {
			vm.Term = cr.Stats.TagCounts[0].Tag
			if _, ok := m.Vocabulary().ID(demoTerm); ok && cr.Builtin {
				vm.Term = demoTerm
			}
		}
	}
	if _, ok := m.Vocabulary().ID(vm.Term); !ok {
		vm.Error = fmt.Sprintf("%q is not in the model's vocabulary.", vm.Term)
		return render(c, http.StatusOK, views.ExplorerPageView(vm))
	}
	q := url.Values{}
	q.Set("term", vm.Term)
	q.Set("variant", vm.Variant)
	q.Set("corpus", strings.Join(vm.CorpusIDs, ","))
	if vm.Docs != "" {
		q.Set("docs", vm.Docs)
	}
	vm.MapURL = "/api/models/" + sel + "/map?" + q.Encode()
	vm.Map = mapChart("map")
	return render(c, http.StatusOK, views.ExplorerPageView(vm))
}

func (p *pages) priming(c echo.Context) error {
	ms, sel, err := p.readyModels(c)
	if err != nil {
		return err
	}
	vm := views.PrimingPage{Models: ms, ModelID: sel, Tags: c.QueryParam("tags"), Variant: c.QueryParam("variant"), K: 10}
	if v := c.QueryParam("k"); v != "" {
		if k, err := strconv.Atoi(v); err == nil {
			vm.K = k
		}
	}
	if sel == "" || strings.TrimSpace(vm.Tags) == "" {
		return render(c, http.StatusOK, views.PrimingPageView(vm))
	}
	_, m, err := p.s.model(c.Request().Context(), sel)
	if err != nil {
		return notFound(err, "model", sel)
	}
	tags := cleanTags(strings.Split(vm.Tags, ","))
	res, err := primeWith(m, primeReq{Tags: tags, K: vm.K, Variant: vm.Variant})
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			vm.Error = fmt.Sprint(he.Message)
			return render(c, http.StatusOK, views.PrimingPageView(vm))
		}
		return err
	}
	r := &views.PrimeResult{Tags: tags, OOV: res.OOV}
	for _, e := range res.Extended {
		r.Extended = append(r.Extended, views.Ranked{Term: e.Term, Distance: e.Distance, Hit: e.InDoc})
	}
	oov := map[string]bool{}
	for _, t := range res.OOV {
		oov[t] = true
	}
	for _, t := range tags {
		list, ok := res.PerTerm[t]
		if !ok {
			continue
		}
		tl := views.TermList{Term: t, OOV: oov[t]}
		for _, e := range list {
			tl.Items = append(tl.Items, views.Ranked{Term: e.Term, Distance: e.Distance, Hit: e.InDoc})
		}
		r.PerTerm = append(r.PerTerm, tl)
	}
	vm.Result = r
	return render(c, http.StatusOK, views.PrimingPageView(vm))
}

func (p *pages) compare(c echo.Context) error {
	ms, sel, err := p.readyModels(c)
	if err != nil {
		return err
	}
	cs, names, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	var vm views.ComparePage
	group := textlist.Split(c.QueryParam("group"))
	if len(group) > 0 {
		// The seed group the train form started: every model, ready or not.
		for _, id := range group {
			r, err := p.s.store.Model(c.Request().Context(), id)
			if err != nil {
				return notFound(err, "model", id)
			}
			vm.Group = append(vm.Group, p.modelVM(c, r, names))
		}
		vm.SeedTrials = c.QueryParam("seed_trials") != ""
	}
	for _, m := range ms {
		picked := m.ID == sel
		if len(group) > 0 {
			picked = slices.Contains(group, m.ID)
		}
		vm.Models = append(vm.Models, views.Option{Value: m.ID, Label: m.Name, Selected: picked})
	}
	for _, b := range baselines.Names {
		vm.Baselines = append(vm.Baselines, views.Option{Value: b, Label: baselineLabels[b], Selected: b == "random" || b == "lda"})
	}
	vm.Corpora = append(vm.Corpora, views.Option{Value: "", Label: "the model's own corpus", Selected: true})
	for _, c := range cs {
		vm.Corpora = append(vm.Corpora, views.Option{Value: c.ID, Label: c.Name})
	}
	for _, s := range []string{"test", "valid", "train", "oov", "all"} {
		vm.Subsets = append(vm.Subsets, views.Option{Value: s, Label: s, Selected: s == "test"})
	}
	vm.Protocols = []views.Option{{Value: "priming", Label: "priming (Eq. 8)", Selected: true}, {Value: "extended", Label: "extended priming (Eq. 9)"}}
	vm.Settings = []views.Option{
		{Value: "within-corpus", Label: "within corpus (§6.2.1)", Selected: true},
		{Value: "cross-corpora", Label: "cross corpora: another corpus (§6.2.2)"},
		{Value: "incomplete-context|10", Label: "incomplete context, missing ≤10 % (§6.2.3)"},
		{Value: "incomplete-context|10-30", Label: "incomplete context, missing 10–30 %"},
		{Value: "incomplete-context|30-50", Label: "incomplete context, missing 30–50 %"},
		{Value: "oov", Label: "OOV terms: ce/siamese-ce × feature/avg (§6.2.4)"},
	}
	evs, err := p.s.store.Evals(c.Request().Context())
	if err != nil {
		return err
	}
	for _, e := range evs {
		vm.Evals = append(vm.Evals, p.evalVM(c, e, names))
	}
	return render(c, http.StatusOK, views.ComparePageView(vm))
}

// baselineLabels describe the baselines on the compare form.
var baselineLabels = map[string]string{
	"random":   "random",
	"lsa":      "lsa (global)",
	"pca":      "pca (global)",
	"infotheo": "infotheo (global)",
	"skipgram": "skipgram (global)",
	"lda":      "lda",
	"plsa":     "plsa",
	"crbm":     "crbm (train subset only)",
	"ppmi-svd": "ppmi-svd (global, not in the paper)",
	"glove":    "glove (global, not in the paper)",
}

func (p *pages) evalVM(c echo.Context, e *EvalRow, names map[string]string) views.Eval {
	var req EvalRequest
	_ = jsonUnmarshal(e.Request, &req)
	vm := views.Eval{ID: e.ID, Corpus: names[e.CorpusID], Subset: req.Subset, Protocol: req.Protocol, Setting: req.Setting,
		Created: fmtTime(e.CreatedAt), JobID: e.JobID, State: JobDone}
	if req.Missing != "" {
		vm.Setting += " " + req.Missing + " %"
	}
	var mnames []string
	for _, id := range req.ModelIDs {
		if m, err := p.s.store.Model(c.Request().Context(), id); err == nil {
			mnames = append(mnames, m.Name)
		} else {
			mnames = append(mnames, id+" (deleted)")
		}
	}
	mnames = append(mnames, req.Baselines...)
	vm.Models = strings.Join(mnames, ", ")
	if j, _, err := p.s.jobs.Get(c.Request().Context(), e.JobID); err == nil {
		vm.State = j.State
	}
	return vm
}

// startCompare: POST /compare (form) → redirect to the evaluation page.
func (p *pages) startCompare(c echo.Context) error {
	if err := c.Request().ParseForm(); err != nil {
		return httpErr(http.StatusBadRequest, "bad form: %v", err)
	}
	f := c.Request().PostForm
	req := EvalRequest{ModelIDs: f["model_ids"], Baselines: f["baselines"], CorpusID: f.Get("corpus_id"),
		Subset: f.Get("subset"), Protocol: f.Get("protocol"), SeedTrials: f.Get("seed_trials") == "on"}
	setting := f.Get("setting")
	if s, band, ok := strings.Cut(setting, "|"); ok {
		req.Setting, req.Missing = s, band
	} else {
		req.Setting = setting
	}
	if v := f.Get("trials"); v != "" && !req.SeedTrials {
		n, err := strconv.Atoi(v)
		if err != nil {
			return httpErr(http.StatusBadRequest, "trials must be an integer")
		}
		req.Trials = n
	}
	ev, _, err := p.s.createEval(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/compare/"+ev.ID)
}

func (p *pages) evaluation(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	e, err := p.s.store.Eval(ctx, id)
	if err != nil {
		return notFound(err, "evaluation", id)
	}
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	vm := views.EvalPage{Eval: p.evalVM(c, e, names)}
	if len(e.Report) == 0 {
		if j, eta, err := p.s.jobs.Get(ctx, e.JobID); err == nil {
			vm.Job = jobVM(j, eta, "", "/compare/"+id)
			if j.State == JobFailed {
				vm.Error = j.Message
			}
		}
		return render(c, http.StatusOK, views.EvalPageView(vm))
	}
	var rep eval.Report
	if err := json.Unmarshal(e.Report, &rep); err != nil {
		return fmt.Errorf("evaluation %s report: %w", id, err)
	}
	fillEvalCharts(&vm, &rep)
	return render(c, http.StatusOK, views.EvalPageView(vm))
}

// contextDocs returns up to 8 documents of the model's corpus with an OOV tag
// and at least two in-vocabulary tags (for the context map), reserved OOV
// documents first; computed once per model.
func (s *Server) contextDocs(ctx context.Context, modelID, corpusID string, m *ce.Model) []views.ContextDoc {
	if v, ok := s.ctxDocs.Load(modelID); ok {
		return v.([]views.ContextDoc)
	}
	row, err := s.store.Corpus(ctx, corpusID)
	if err != nil {
		return nil
	}
	c, err := s.store.Documents(ctx, corpusID)
	if err != nil {
		return nil
	}
	order := append(slices.Clone(row.Split.OOV), make([]int, 0, len(c.Docs))...)
	for i := range c.Docs {
		order = append(order, i)
	}
	var out []views.ContextDoc
	seen := map[int]bool{}
	for _, i := range order {
		if seen[i] || i < 0 || i >= len(c.Docs) {
			continue
		}
		seen[i] = true
		d := c.Docs[i]
		ids, oov := m.Vocabulary().Encode(d)
		if len(oov) > 0 && len(ids) >= 2 {
			out = append(out, views.ContextDoc{ID: d.ID, Tags: d.Tags, OOV: oov})
			if len(out) == 8 {
				break
			}
		}
	}
	s.ctxDocs.Store(modelID, out)
	return out
}
