package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/views"
)

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
	for i, name := range []string{"perplexity", "iters", "seed"} {
		if v := strings.TrimSpace(c.QueryParam(name)); v != "" {
			vm.TSNE[i] = v
			q.Set(name, v)
		}
	}
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
	switch vm.Color {
	case "cluster", "term", "corpus", "topic", "oov":
	default:
		vm.Color = "cluster" // unknown colourings fall back to the default
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
	terms, err := mapTerms(m, vm.Term)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			vm.Error = fmt.Sprint(he.Message) + "."
			return render(c, http.StatusOK, views.ExplorerPageView(vm))
		}
		return err
	}
	q := url.Values{}
	q.Set("term", strings.Join(terms, ","))
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
	q := c.QueryParams()
	vm := views.PrimingPage{Models: ms, ModelID: sel, Tags: q.Get("tags"), Variant: q.Get("variant"), K: strconv.Itoa(app.DefaultPrimeK)}
	// fail renders the page with the form as it was sent and an error box.
	fail := func(code int, format string, args ...any) error {
		vm.Error = fmt.Sprintf(format, args...)
		return render(c, code, views.PrimingPageView(vm))
	}
	var k *int
	if v := strings.TrimSpace(q.Get("k")); q.Has("k") {
		vm.K = v
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > app.MaxPrimeK {
			return fail(http.StatusBadRequest, "K must be an integer in 1..%d, got %q.", app.MaxPrimeK, v)
		}
		k = &n
	}
	if sel == "" || !q.Has("tags") {
		return render(c, http.StatusOK, views.PrimingPageView(vm))
	}
	tags := app.CleanTags(strings.Split(vm.Tags, ","))
	if len(tags) == 0 {
		return fail(http.StatusBadRequest, "Type at least one tag (several: comma-separated).")
	}
	_, m, err := p.s.model(c.Request().Context(), sel)
	if err != nil {
		return notFound(err, "model", sel)
	}
	variant, _ := checkVariant(vm.Variant) // primeWith reports a wrong one
	res, err := primeWith(m, primeReq{Tags: tags, K: k, Variant: vm.Variant})
	if err != nil {
		var he *echo.HTTPError
		if !errors.As(err, &he) {
			return err
		}
		vm.Error = fmt.Sprint(he.Message)
		if he.Code == http.StatusUnprocessableEntity { // no tag known: what each may have meant
			for _, r := range m.Resolve(tags) {
				vm.Unknown = append(vm.Unknown, oovTagVM(vm, tags, r.Tag, r.Suggest))
			}
		}
		return render(c, he.Code, views.PrimingPageView(vm))
	}
	r := &views.PrimeResult{Tags: tags, Variant: ce.VariantLabel(variant)}
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
