package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

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
	// The seed group the train form started, or another page's "compare this
	// group": every model, ready or not, its ready ones chosen.
	var group []string
	if vm.Group, group, err = p.compareGroup(c, c.QueryParam("group"), names); err != nil {
		return err
	}
	vm.SeedTrials = vm.Group != nil && c.QueryParam("seed_trials") != ""
	for _, m := range ms {
		picked := m.ID == sel
		if vm.Group != nil {
			picked = slices.Contains(group, m.ID)
		}
		vm.Models = append(vm.Models, views.Option{Value: m.ID, Label: m.Name, Selected: picked, Kind: m.CorpusID})
	}
	for _, b := range baselines.Names {
		kind := ""
		switch {
		case slices.Contains(baselines.NonContextual, b):
			kind = "global"
		case b == baselines.NameCRBM:
			kind = "crbm"
		}
		vm.Baselines = append(vm.Baselines, views.Option{Value: b, Label: baselineLabels[b], Selected: b == baselines.NameRandom || b == baselines.NameLDA, Kind: kind})
	}
	vm.Corpora = append(vm.Corpora, views.Option{Value: "", Label: "the model's own corpus", Selected: true})
	for _, c := range cs {
		vm.Corpora = append(vm.Corpora, views.Option{Value: c.ID, Label: c.Name})
	}
	for _, s := range []string{"test", "valid", "train", "oov", "all"} {
		vm.Subsets = append(vm.Subsets, views.Option{Value: s, Label: s, Selected: s == "test"})
	}
	vm.Protocols = []views.Option{{Value: "priming", Label: "priming (Eq. 8)", Selected: true}, {Value: "extended", Label: "extended priming (Eq. 9)"},
		{Value: "completion", Label: "completion (each term held out of its context)"}}
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
		ev, err := p.evalVM(c, e, names)
		if err != nil {
			return err
		}
		vm.Evals = append(vm.Evals, ev)
	}
	// A new form id per rendering: submitting this form twice starts its
	// evaluation once (formOnce).
	r := c.Request()
	c.SetRequest(r.WithContext(views.WithFormID(r.Context(), newFormID())))
	return render(c, http.StatusOK, views.ComparePageView(vm))
}

// baselineLabels describe the baselines on the compare form.
var baselineLabels = map[string]string{
	baselines.NameRandom:    "random",
	baselines.NameLSA:       "lsa (global)",
	baselines.NamePCA:       "pca (global)",
	baselines.NameInfoTheo:  "infotheo (global)",
	baselines.NameSkipGram:  "skipgram (global)",
	baselines.NameLDA:       "lda",
	baselines.NamePLSA:      "plsa",
	baselines.NameCRBM:      "crbm (train subset only)",
	baselines.NamePPMISVD:   "ppmi-svd (global, not in the paper)",
	baselines.NameGloVe:     "glove (global, not in the paper)",
	baselines.NameEASE:      "ease — EASE^R under Eq. 9 (global, not in the paper)",
	baselines.NameEASEScore: "ease-score — EASE^R ranked by its own score, not Eq. 9 (global, not in the paper)",
	baselines.NameRP3beta:   "rp3beta — ranked by its own score, not Eq. 9 (global, not in the paper)",
	baselines.NameItemKNN:   "itemknn — ranked by its own score, not Eq. 9 (global, not in the paper)",
}

func (p *pages) evalVM(c echo.Context, e *store.EvalRow, names map[string]string) (views.Eval, error) {
	var req evalRequest
	if err := jsonUnmarshal(e.Request, &req); err != nil {
		return views.Eval{}, fmt.Errorf("evaluation %s: stored request: %w", e.ID, err)
	}
	vm := views.Eval{ID: e.ID, Corpus: names[e.CorpusID], Subset: req.Subset, Protocol: req.Protocol, Setting: req.Setting,
		Created: fmtTime(e.CreatedAt), JobID: e.JobID, State: store.JobDone}
	if req.Missing != "" {
		vm.Setting += " " + req.Missing + " %"
	}
	var mnames []string
	deleted, at := 0, 0 // deleted models are named once, where the first was
	for _, id := range req.ModelIDs {
		if m, err := p.s.store.Model(c.Request().Context(), id); err == nil {
			mnames = append(mnames, m.Name)
			continue
		}
		if deleted == 0 {
			at = len(mnames)
			mnames = append(mnames, "")
		}
		deleted++
	}
	switch {
	case deleted == 1:
		mnames[at] = "deleted model"
	case deleted > 1:
		mnames[at] = fmt.Sprintf("%d deleted models", deleted)
	}
	mnames = append(mnames, req.Baselines...)
	vm.Models = strings.Join(mnames, ", ")
	if j, _, err := p.s.jobs.Get(c.Request().Context(), e.JobID); err == nil {
		vm.State = j.State
	}
	return vm, nil
}

// startCompare: POST /compare (form) → redirect to the evaluation page. The
// same form (by its form id) submitted again is sent to the same page
// without starting another evaluation.
func (p *pages) startCompare(c echo.Context) error {
	if err := c.Request().ParseForm(); err != nil {
		return app.BadInput("", "bad form: %v", err)
	}
	url, err := p.s.forms.do(c.Request().Context(), c.Request().PostForm.Get(views.FormIDField), func() (string, error) {
		return p.compareForm(c)
	})
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, url)
}

// compareForm starts the evaluation of a submitted comparison form and
// returns its page.
func (p *pages) compareForm(c echo.Context) (string, error) {
	f := c.Request().PostForm
	req := evalRequest{ModelIDs: f["model_ids"], Baselines: f["baselines"], CorpusID: f.Get("corpus_id"),
		Subset: f.Get("subset"), Protocol: f.Get("protocol"), SeedTrials: f.Get("seed_trials") == "on"}
	setting := f.Get("setting")
	if s, band, ok := strings.Cut(setting, "|"); ok {
		req.Setting, req.Missing = s, band
	} else {
		req.Setting = setting
	}
	if req.SeedTrials {
		// Trial i uses model i: the seeds in increasing order, whatever the
		// order of the form's checkboxes (newest model first).
		seeds := map[string]uint64{}
		for _, id := range req.ModelIDs {
			if m, err := p.s.store.Model(c.Request().Context(), id); err == nil {
				seeds[id] = m.Seed
			}
		}
		slices.SortStableFunc(req.ModelIDs, func(a, b string) int { return cmp.Compare(seeds[a], seeds[b]) })
	}
	if v := f.Get("trials"); v != "" && !req.SeedTrials {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", app.BadInput("trials", "must be an integer")
		}
		req.Trials = n
	}
	ev, _, err := p.s.createEval(c.Request().Context(), req)
	if err != nil {
		return "", err
	}
	return "/compare/" + ev.ID, nil
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
	ev, err := p.evalVM(c, e, names)
	if err != nil {
		return err
	}
	vm := views.EvalPage{Eval: ev}
	if len(e.Report) == 0 {
		if j, eta, err := p.s.jobs.Get(ctx, e.JobID); err == nil {
			vm.Job = jobVM(j, eta, "", "/compare/"+id)
			if j.State == store.JobFailed {
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

// maxSide bounds the evaluations shown side by side.
const maxSide = 4

// sideBySide: GET /compare/side?ids=A&ids=B (or ids=A,B) — two to four
// finished evaluations side by side, each with its table and its MAP and AUC
// charts (chart ids numbered by column).
func (p *pages) sideBySide(c echo.Context) error {
	var ids []string
	for _, v := range c.QueryParams()["ids"] {
		for _, id := range textlist.Split(v) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) < 2 || len(ids) > maxSide {
		// A page saying what to do, not a bare error page.
		ticked := "none was ticked"
		switch {
		case len(ids) == 1:
			ticked = "only one was ticked"
		case len(ids) > 1:
			ticked = fmt.Sprintf("%d were ticked", len(ids))
		}
		err := app.BadInput("", "Tick two to %d finished evaluations in the comparisons' table to see them side by side; %s.", maxSide, ticked)
		return renderError(c, err, views.SidePageView(views.SidePage{Error: err.Error()}))
	}
	ctx := c.Request().Context()
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	var vm views.SidePage
	var reps []*eval.Report
	for _, id := range ids {
		e, err := p.s.store.Eval(ctx, id)
		if err != nil {
			return notFound(err, "evaluation", id)
		}
		ev, err := p.evalVM(c, e, names)
		if err != nil {
			return err
		}
		if len(e.Report) == 0 {
			return app.Conflict("evaluation %s (%s) has not finished", id, ev.Models)
		}
		var rep eval.Report
		if err := json.Unmarshal(e.Report, &rep); err != nil {
			return fmt.Errorf("evaluation %s report: %w", id, err)
		}
		page := views.EvalPage{Eval: ev}
		fillEvalScores(&page, &rep)
		vm.Evals = append(vm.Evals, page)
		reps = append(reps, &rep)
	}
	// One y scale for every column: bars of equal height are equal figures.
	mapMax := sharedMax(reps, func(m eval.ModelReport) (float64, float64) { return m.MAP, m.MAPSE })
	aucMax := sharedMax(reps, func(m eval.ModelReport) (float64, float64) { return m.AUC, m.AUCSE })
	for i, rep := range reps {
		vm.Evals[i].MAP, vm.Evals[i].AUC = mapAUCCharts(rep, fmt.Sprint("map-", i), fmt.Sprint("auc-", i), mapMax, aucMax)
	}
	a, b := vm.Evals[0].Eval, vm.Evals[1].Eval
	if a.Corpus != b.Corpus || a.Subset != b.Subset || a.Protocol != b.Protocol || a.Setting != b.Setting {
		vm.VersusWhy = "The first two evaluations differ in corpus, subset, protocol or setting, so their models are not compared trial by trial."
	} else {
		vm.Versus = versus(reps[0], reps[1])
	}
	return render(c, http.StatusOK, views.SidePageView(vm))
}

// versus lists, for every model of report a also in b, its MAP in each and
// Student's t-test between their per-trial MAPs ("n/a" with fewer than three
// trials in all).
func versus(a, b *eval.Report) []views.Versus {
	var out []views.Versus
	for _, ma := range a.Models {
		for _, mb := range b.Models {
			if ma.Name != mb.Name {
				continue
			}
			x, y := make([]float64, len(ma.PerTrial)), make([]float64, len(mb.PerTrial))
			for i, t := range ma.PerTrial {
				x[i] = t.MAP
			}
			for i, t := range mb.PerTrial {
				y[i] = t.MAP
			}
			v := views.Versus{Name: ma.Name, A: fmt.Sprintf("%.3f ± %.3f", ma.MAP, ma.MAPSE), B: fmt.Sprintf("%.3f ± %.3f", mb.MAP, mb.MAPSE), P: "n/a"}
			if _, p, ok := eval.StudentTTest(x, y); ok {
				v.P = fmt.Sprintf("%.3g", p)
			}
			out = append(out, v)
		}
	}
	return out
}
