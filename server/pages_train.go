package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/views"
)

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
	tp, err := trainParamsFromForm(c)
	if err != nil {
		return err
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

// trainParamsFromForm reads the training form's parameters; empty fields keep
// their defaults (zero).
func trainParamsFromForm(c echo.Context) (TrainParams, error) {
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
		return tp, httpErr(http.StatusBadRequest, "%v", err)
	}
	return tp, nil
}
