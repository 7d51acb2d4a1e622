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
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// trainParamsHelp documents the training form: labels, defaults and help come
// from ce.Params, the one description of the training parameters that
// `taglens train`'s flags and the API share.
var trainParamsHelp = []views.Param{
	formParam("max_time", "max_time_seconds", "number"),
	formParam("hidden", "", "text"),
	formParam("topics", "", "number"),
	formParam("batch_size", "", "number"),
	formParam("learning_rate", "", "number"),
	formParam("max_epochs1", "", "number"),
	formParam("max_epochs2", "", "number"),
	formParam("early_stop", "", "", ce.EarlyStopMAP, ce.EarlyStopP2, ce.EarlyStopCompletion),
	formParam("patience", "", "number"),
	formParam("kappa", "", "", ce.Kappas...),
	formParam("stage2_start", "", "", append([]string{"auto"}, ce.Stage2Starts...)...),
	formParam("epoch_examples", "", "number"),
	formParam("alpha", "", "number"),
	formParam("lambda", "", "number"),
}

// formParam is the form field of the training parameter name (ce.Params):
// field is its form and API name when it differs (max_time is given in
// seconds), typ the input type, options the choices of a select (the default
// first). A default longer than a word shows as "auto" in the empty field and
// in full in the help.
func formParam(name, field, typ string, options ...string) views.Param {
	p := ce.ParamByName(name)
	r, size := utf8.DecodeRuneInString(p.Help)
	f := views.Param{Name: name, Label: p.Label, Value: p.Default, Type: typ, Options: options,
		Help: string(unicode.ToUpper(r)) + p.Help[size:] + ". Default: " + p.Default + "."}
	if field != "" {
		f.Name = field
	}
	if name == "max_time" {
		f.Label += " (s)"
	}
	if strings.ContainsAny(f.Value, " ;,(") {
		f.Value = "auto"
	}
	return f
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
	// A new form id per rendering: submitting this form twice starts its
	// trainings once (formOnce).
	r := c.Request()
	c.SetRequest(r.WithContext(views.WithFormID(r.Context(), newFormID())))
	return render(c, http.StatusOK, views.TrainPageView(views.TrainPage{Corpora: cs, CorpusID: c.QueryParam("corpus"), Params: trainParamsHelp, Models: ms}))
}

// startTraining: POST /train (form) → redirect to the model page with live
// progress. The same form (by its form id) submitted again is sent to the
// same page without starting anything.
func (p *pages) startTraining(c echo.Context) error {
	url, err := p.s.forms.do(c.Request().Context(), c.FormValue(views.FormIDField), func() (string, error) {
		return p.trainForm(c)
	})
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, url)
}

// trainForm starts the trainings of a submitted training form and returns
// the page to send the client to: the model's, or the comparison of a seed
// group.
func (p *pages) trainForm(c echo.Context) (string, error) {
	req := createModelReq{CorpusID: c.FormValue("corpus_id"), Name: c.FormValue("name")}
	if v := strings.TrimSpace(c.FormValue("seed")); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return "", app.BadInput("seed", "must be a non-negative integer")
		}
		req.Seed = &seed
	}
	tp, err := trainParamsFromForm(c)
	if err != nil {
		return "", err
	}
	req.Params = &tp
	seeds := 1
	if v := strings.TrimSpace(c.FormValue("seeds")); v != "" {
		if seeds, err = strconv.Atoi(v); err != nil || seeds < 1 || seeds > maxSeedGroup {
			return "", app.BadInput("seeds", "must be an integer in 1..%d", maxSeedGroup)
		}
	}
	if seeds == 1 {
		m, _, err := p.s.createModel(c.Request().Context(), req)
		if err != nil {
			return "", err
		}
		return "/models/" + m.ID, nil
	}
	// A seed group: the same parameters with seeds seed, seed+1, …, stored
	// as a group; its comparison page follows the members' trainings live
	// and evaluates them as one model with trials once they are ready.
	g, _, err := p.s.createGroup(c.Request().Context(), createGroupReq{CorpusID: req.CorpusID, Name: req.Name,
		Seed: req.Seed, Seeds: seeds, Params: req.Params})
	if err != nil {
		return "", err
	}
	return "/compare?seed_trials=1&group=" + url.QueryEscape(g.ID), nil
}

// modelsPerPage is how many models the models page lists at a time.
const modelsPerPage = 50

// models: GET /models[?page=N] — the models, newest first, modelsPerPage a
// page: the page costs the same however many models there are.
func (p *pages) models(c echo.Context) error {
	_, total, _, _, err := p.s.store.Counts(c.Request().Context())
	if err != nil {
		return err
	}
	vm := views.ModelsPage{Page: 1, Pages: max(1, (total+modelsPerPage-1)/modelsPerPage), Total: total}
	if n, err := strconv.Atoi(c.QueryParam("page")); err == nil && n > 1 {
		vm.Page = min(n, vm.Pages)
	}
	// The table shows the stored models and their corpora only: it is
	// rendered once per write of the store (store.CachedRead).
	table, err := store.CachedRead(p.s.store, fmt.Sprint("models.html\x00", vm.Page), func() (string, error) {
		ms, err := p.modelPage(c, modelsPerPage, (vm.Page-1)*modelsPerPage)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		err = views.ModelTable(ms).Render(c.Request().Context(), &b)
		return b.String(), err
	})
	if err != nil {
		return err
	}
	vm.Table = templ.Raw(table)
	if vm.Page == 1 {
		// The newest seed groups with their members' stored states, rendered
		// once per write of the store too.
		groups, err := store.CachedRead(p.s.store, "groups.html", func() (string, error) {
			gs, err := p.modelsPageGroups(c)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			err = views.GroupList(gs).Render(c.Request().Context(), &b)
			return b.String(), err
		})
		if err != nil {
			return err
		}
		vm.Groups = templ.Raw(groups)
	}
	vm.First = min((vm.Page-1)*modelsPerPage+1, total)
	vm.Last = min(vm.Page*modelsPerPage, total)
	return render(c, http.StatusOK, views.ModelsPageView(vm))
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
	if vm.GroupID, err = p.s.store.ModelGroup(ctx, r.ID); err != nil {
		return err
	} else if vm.GroupID != "" {
		g, err := p.s.store.Group(ctx, vm.GroupID)
		if err != nil {
			return err
		}
		vm.GroupName = g.Name
	}
	var params map[string]any
	if err := jsonUnmarshal(r.Params, &params); err != nil {
		return fmt.Errorf("model %s: stored parameters: %w", r.ID, err)
	}
	vm.Params = kvs(params)
	vm.Params = append([]views.KV{{Key: "seed", Value: fmt.Sprint(r.Seed)}}, vm.Params...)
	if len(params) == 0 {
		vm.Params = append(vm.Params, views.KV{Key: "(all others)", Value: "defaults"})
	}
	var info map[string]any
	if err := jsonUnmarshal(r.Info, &info); err != nil {
		return fmt.Errorf("model %s: stored training record: %w", r.ID, err)
	}
	vm.Info = kvs(info)
	if r.JobID != "" {
		if j, eta, err := p.s.jobs.Get(ctx, r.JobID); err == nil && (!j.Finished() || j.State != store.JobDone) {
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
			if b, err := json.Marshal(x); err == nil {
				s = string(b)
			} else {
				s = fmt.Sprint(x)
			}
		}
		out = append(out, views.KV{Key: k, Value: s})
	}
	return out
}

// trainParamsFromForm reads the training form's parameters; empty fields keep
// their defaults (zero).
func trainParamsFromForm(c echo.Context) (trainParams, error) {
	var tp trainParams
	for _, f := range trainParamsHelp {
		v := strings.TrimSpace(c.FormValue(f.Name))
		if v == "" {
			continue
		}
		if v == "auto" && len(f.Options) > 0 {
			continue // a select's "auto": the default, which depends on the corpus
		}
		if f.Name == "max_time_seconds" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return tp, app.BadInput("max_time_seconds", "%q: not a number", v)
			}
			tp.MaxTimeSeconds = x
			continue
		}
		if err := tp.Set(f.Name, v); err != nil {
			return tp, app.BadInput("", "%v", err)
		}
	}
	return tp, nil
}
