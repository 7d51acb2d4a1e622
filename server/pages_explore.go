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
	tags := app.CleanTags(strings.Split(vm.Tags, ","))
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
