package server

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// readyModels returns the ready models' view models and the one selected by the
// "model" query parameter (default: the newest ready one).
func (p *pages) readyModels(c echo.Context) ([]views.Model, string, error) {
	return p.readyModelsFor(c, c.QueryParam("model"))
}

// readyModelsFor is readyModels selecting model sel.
func (p *pages) readyModelsFor(c echo.Context, sel string) ([]views.Model, string, error) {
	ms, err := p.modelVMs(c)
	if err != nil {
		return nil, "", err
	}
	var ready []views.Model
	for _, m := range ms {
		if m.State == store.ModelReady {
			ready = append(ready, m)
		}
	}
	if sel == "" && len(ready) > 0 {
		sel = ready[0].ID
	}
	return ready, sel, nil
}

// spaceView renders the explorer's map of the whole space of the selected model.
func (p *pages) spaceView(c echo.Context, q url.Values, vm views.ExplorerPage, status int) error {
	vm.View = "space"
	vm.Projection = q.Get("projection")
	if vm.Projection != projPCA {
		vm.Projection = projTSNE
	}
	vm.K = 10
	if k, err := strconv.Atoi(q.Get("k")); err == nil && k >= 1 && k <= maxSpaceK {
		vm.K = k
	}
	sq := url.Values{}
	sq.Set("variant", vm.Variant)
	sq.Set("projection", vm.Projection)
	tsneQuery(q, &vm, sq)
	if vm.Error == "" {
		vm.SpaceURL = "/api/models/" + vm.ModelID + "/space?" + sq.Encode()
	}
	vm.Map = mapChart("space")
	return render(c, status, views.ExplorerPageView(vm))
}

func (p *pages) explorer(c echo.Context) error {
	return p.explorerPage(c, c.QueryParams(), http.StatusOK, "")
}

// explorerPage renders the explorer for the parameters q: a term map, a
// context map or the whole space, whose script reads the map (a GET, which
// computes nothing: the page's forms and its "Compute" button post to
// exploreCompute). With fail, the page says it (status: its status) in
// place of the map.
func (p *pages) explorerPage(c echo.Context, q url.Values, status int, fail string) error {
	ms, sel, err := p.readyModelsFor(c, q.Get("model"))
	if err != nil {
		return err
	}
	vm := views.ExplorerPage{Models: ms, ModelID: sel, Term: strings.TrimSpace(q.Get("term")),
		Docs: q.Get("docs"), Variant: q.Get("variant"), Color: q.Get("color"), Error: fail}
	if vm.Variant == "" {
		vm.Variant = string(ce.DefaultVariant)
	}
	switch vm.Color {
	case "cluster", "term", "corpus", "topic", "oov":
	default:
		vm.Color = "cluster" // unknown colourings fall back to the default
	}
	if sel == "" {
		// No ready model: while the demo model trains, the page says so.
		if vm.DemoTraining, err = p.demoTraining(c, "/explorer"); err != nil {
			return err
		}
		return render(c, status, views.ExplorerPageView(vm))
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
	vm.CorpusIDs = q["corpus"]
	if len(vm.CorpusIDs) == 0 {
		vm.CorpusIDs = []string{row.CorpusID}
	}
	// The "Compute" button posts the page's own parameters.
	vm.Compute = []views.KV{{Key: "model", Value: sel}}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			if k != "model" && v != "" {
				vm.Compute = append(vm.Compute, views.KV{Key: k, Value: v})
			}
		}
	}
	switch q.Get("view") {
	case "space":
		return p.spaceView(c, q, vm, status)
	case "instances":
		return p.instancesView(c, q, vm, status)
	}
	vm.ContextDoc = strings.TrimSpace(q.Get("context_doc"))
	vm.ContextDocs = p.s.contextDocs(ctx, row.ID, row.CorpusID, m)
	if vm.Error != "" {
		return render(c, status, views.ExplorerPageView(vm))
	}
	if vm.ContextDoc != "" {
		vm.MapURL = "/api/models/" + sel + "/context-map?" + contextQuery(q).Encode()
		vm.Map = mapChart("map")
		return render(c, status, views.ExplorerPageView(vm))
	}
	if vm.Term == "" {
		vm.Term = p.s.defaultTerm(ctx, row, m)
	}
	terms, err := mapTerms(m, vm.Term)
	if err != nil {
		if _, msg, ok := formError(err); ok {
			vm.Error = msg + "."
			return render(c, status, views.ExplorerPageView(vm))
		}
		return err
	}
	tq := url.Values{}
	tq.Set("term", strings.Join(terms, ","))
	tq.Set("variant", vm.Variant)
	tq.Set("corpus", strings.Join(vm.CorpusIDs, ","))
	if vm.Docs != "" {
		tq.Set("docs", vm.Docs)
	}
	vm.MapURL = "/api/models/" + sel + "/map?" + tq.Encode()
	vm.Map = mapChart("map")
	return render(c, status, views.ExplorerPageView(vm))
}

// contextQuery is the context map API's query of an explorer page's.
func contextQuery(q url.Values) url.Values {
	cq := url.Values{}
	cq.Set("doc", strings.TrimSpace(q.Get("context_doc")))
	cq.Set("variant", q.Get("variant"))
	if q.Get("variant") == "" {
		cq.Set("variant", string(ce.DefaultVariant))
	}
	return cq
}

// defaultTerm is the explorer's term when none is given: the model corpus's
// most used tag (the demo's planted term on the demo corpus), so that the
// first visit shows a map.
func (s *Server) defaultTerm(ctx context.Context, row *store.ModelRow, m *ce.Model) string {
	cr, err := s.store.Corpus(ctx, row.CorpusID)
	if err != nil || len(cr.Stats.TagCounts) == 0 {
		return ""
	}
	if _, ok := m.Vocabulary().ID(demoTerm); ok && cr.Builtin {
		return demoTerm
	}
	return cr.Stats.TagCounts[0].Tag
}

// exploreCompute: POST /explorer — the explorer's forms and its "Compute"
// button (with the page's CSRF token) start computing the map they ask for
// and send the browser to the explorer page that shows it (a GET, which
// reads it or follows its job). The same form sent twice computes once: a
// map's job is joined and a quick map computed once (Server.computing). A
// form the map cannot be made of (a term outside the vocabulary, an unknown
// document) gets the explorer page saying why.
func (p *pages) exploreCompute(c echo.Context) error {
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return app.BadInput("", "bad form: %v", err)
	}
	q := url.Values{}
	for k, vs := range r.PostForm {
		if k == views.CSRFField || k == views.FormIDField {
			continue
		}
		for _, v := range vs {
			if v = strings.TrimSpace(v); v != "" {
				q.Add(k, v)
			}
		}
	}
	if err := p.startExplore(c, q); err != nil {
		if code, msg, ok := formError(err); ok {
			return p.explorerPage(c, q, code, msg+".")
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/explorer?"+q.Encode())
}

// startExplore starts computing the map of explorer parameters q (the
// same map explorerPage shows for them): the whole space, a context map or
// a term map with its overlay.
func (p *pages) startExplore(c echo.Context, q url.Values) error {
	ctx := c.Request().Context()
	_, sel, err := p.readyModelsFor(c, q.Get("model"))
	if err != nil {
		return err
	}
	if sel == "" {
		return nil // no ready model: the page says so
	}
	row, m, err := p.s.model(ctx, sel)
	if err != nil {
		if errors.Is(err, errModelNotReady) || errors.Is(err, errModelBroken) {
			return app.Conflict("model %q is %s, not ready", sel, row.State)
		}
		return notFound(err, "model", sel)
	}
	switch {
	case q.Get("view") == "space":
		variant, proj, ts, err := spaceParams(q)
		if err != nil {
			return err
		}
		_, _, err = p.s.startSpace(ctx, row, variant, proj, ts)
		return err
	case q.Get("view") == "instances":
		variant, ts, err := instanceParams(q)
		if err != nil {
			return err
		}
		if p.s.loadBinMap(ctx, row.ID, instanceKey(variant, row.CorpusID, ts)) == nil {
			_, err = p.s.instanceJob(row, variant, ts)
		}
		return err
	case strings.TrimSpace(q.Get("context_doc")) != "":
		_, err := p.s.startContextMap(ctx, row, m, contextQuery(q))
		return err
	}
	tq := url.Values{}
	tq.Set("term", q.Get("term"))
	if tq.Get("term") == "" {
		tq.Set("term", p.s.defaultTerm(ctx, row, m))
	}
	tq.Set("variant", q.Get("variant"))
	tq.Set("corpus", strings.Join(q["corpus"], ","))
	tq.Set("docs", q.Get("docs"))
	t, err := p.s.resolveTermMap(ctx, row, m, tq)
	if err != nil {
		return err
	}
	_, _, err = p.s.startTermMap(ctx, t)
	return err
}

func (p *pages) priming(c echo.Context) error {
	ms, sel, err := p.readyModels(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	vm := views.PrimingPage{Models: ms, ModelID: sel, Tags: q.Get("tags"), Variant: q.Get("variant"), K: strconv.Itoa(app.DefaultPrimeK)}
	// fail renders the page with the form as it was sent and an error box.
	fail := func(err error) error {
		vm.Error = err.Error()
		return renderError(c, err, views.PrimingPageView(vm))
	}
	var k *int
	if v := strings.TrimSpace(q.Get("k")); q.Has("k") {
		vm.K = v
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > app.MaxPrimeK {
			return fail(app.BadInput("K", "must be an integer in 1..%d, got %q.", app.MaxPrimeK, v))
		}
		k = &n
	}
	if sel == "" {
		// No ready model: while the demo model trains, the page says so.
		if vm.DemoTraining, err = p.demoTraining(c, "/priming"); err != nil {
			return err
		}
	}
	if sel == "" || !q.Has("tags") {
		return render(c, http.StatusOK, views.PrimingPageView(vm))
	}
	tags := app.CleanTags(strings.Split(vm.Tags, ","))
	if len(tags) == 0 {
		return fail(app.BadInput("", "Type at least one tag (several: comma-separated)."))
	}
	_, m, err := p.s.model(c.Request().Context(), sel)
	if err != nil {
		return notFound(err, "model", sel)
	}
	variant, _ := checkVariant(vm.Variant) // primeWith reports a wrong one
	res, err := primeWith(m, primeReq{Tags: tags, K: k, Variant: vm.Variant})
	if err != nil {
		code, msg, ok := formError(err)
		if !ok {
			return err
		}
		vm.Error = msg
		if errors.Is(err, app.ErrUnplaceable) { // no tag known: what each may have meant
			for _, r := range m.Resolve(tags) {
				vm.Unknown = append(vm.Unknown, oovTagVM(vm, tags, r.Tag, r.Suggest))
			}
		}
		return render(c, code, views.PrimingPageView(vm))
	}
	r := &views.PrimeResult{Tags: tags, Variant: ce.VariantLabel(variant), Width: m.Width(ce.Variant(variant))}
	for _, t := range res.OOV {
		r.OOV = append(r.OOV, oovTagVM(vm, tags, t, res.Suggestions[t]))
	}
	for _, t := range tags {
		if term, ok := res.Matched[t]; ok {
			r.Folded = append(r.Folded, views.KV{Key: t, Value: term})
		}
	}
	for _, e := range res.Extended {
		r.Extended = append(r.Extended, views.Ranked{Term: e.Term, Distance: e.Distance, Hit: e.InDoc})
	}
	oov := map[string]bool{}
	for _, t := range res.OOV {
		oov[t] = true
	}
	shown := map[string]bool{}
	for _, t := range tags {
		term, typed := t, ""
		if mt, ok := res.Matched[t]; ok {
			term, typed = mt, t
		}
		list, ok := res.PerTerm[term]
		if !ok || shown[term] {
			continue
		}
		shown[term] = true
		tl := views.TermList{Term: term, Typed: typed, OOV: oov[term]}
		for _, e := range list {
			tl.Items = append(tl.Items, views.Ranked{Term: e.Term, Distance: e.Distance, Hit: e.InDoc})
		}
		r.PerTerm = append(r.PerTerm, tl)
	}
	vm.Result = r
	return render(c, http.StatusOK, views.PrimingPageView(vm))
}

// oovTagVM is an OOV tag of the priming page with its suggestions, each a
// link to the page with the tag replaced by the suggested term.
func oovTagVM(vm views.PrimingPage, tags []string, tag string, suggest []string) views.OOVTag {
	o := views.OOVTag{Tag: tag}
	for _, s := range suggest {
		with := make([]string, len(tags))
		for i, t := range tags {
			with[i] = t
			if t == tag {
				with[i] = s
			}
		}
		q := url.Values{}
		q.Set("model", vm.ModelID)
		if vm.Variant != "" {
			q.Set("variant", vm.Variant)
		}
		q.Set("k", vm.K)
		q.Set("tags", strings.Join(with, ", "))
		o.Suggest = append(o.Suggest, views.Suggestion{Term: s, URL: "/priming?" + q.Encode()})
	}
	return o
}

// contextDocs returns up to 8 documents of the model's corpus with an OOV tag
// and at least two in-vocabulary tags (for the context map), reserved OOV
// documents first; computed once per model.
func (s *Server) contextDocs(ctx context.Context, modelID, corpusID string, m *ce.Model) []views.ContextDoc {
	if v, ok := s.ctxDocs.Load(modelID); ok {
		return v.([]views.ContextDoc)
	}
	row, err := s.store.CorpusWithSplit(ctx, corpusID)
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

// tsneQuery copies the page's t-SNE controls (perplexity, iterations, seed)
// that q sets into the view model and into the map request's query sq.
func tsneQuery(q url.Values, vm *views.ExplorerPage, sq url.Values) {
	for i, name := range []string{"perplexity", "iters", "seed"} {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			vm.TSNE[i] = v
			sq.Set(name, v)
		}
	}
}
