package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
)

// contextMap: GET /api/models/:id/context-map?doc=ID[&corpus=ID][&term=OOV][&variant=]
// → MapData of the paper's Figure 7 (app.ContextMap), with kinds "positive",
// "negative", "oov" (feature-based) and "oov-avg" (concept-based).
func (h *modelsAPI) contextMap(c echo.Context) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	docID := strings.TrimSpace(c.QueryParam("doc"))
	if docID == "" {
		return httpErr(http.StatusBadRequest, "doc is required")
	}
	variant, err := checkVariant(c.QueryParam("variant"))
	if err != nil {
		return err
	}
	corpusID := c.QueryParam("corpus")
	if corpusID == "" {
		corpusID = row.CorpusID
	}
	ctx := c.Request().Context()
	crow, err := h.s.store.Corpus(ctx, corpusID)
	if err != nil {
		return notFound(err, "corpus", corpusID)
	}
	doc, err := h.s.store.Document(ctx, corpusID, docID)
	if err != nil {
		return notFound(err, "document", docID)
	}
	cm := &app.ContextMap{Model: m, Variant: variant, Doc: *doc, Corpus: crow.Name, Term: strings.TrimSpace(c.QueryParam("term"))}
	if err := cm.Check(); err != nil {
		return contextMapErr(err)
	}
	key := "context|" + row.ID + "|" + variant + "|" + corpusID + "|" + docID + "|" + cm.Term
	if e := h.s.maps.get(key); e != nil {
		return serveMap(c, e)
	}
	all, err := h.s.store.Documents(ctx, corpusID)
	if err != nil {
		return err
	}
	for _, d := range all.Docs {
		if hasTag(d.Tags, cm.Term) {
			cm.Holding = append(cm.Holding, d)
		}
	}
	pts, kl, err := cm.Compute(ctx)
	if err != nil {
		return contextMapErr(err)
	}
	data := &MapData{Term: cm.Term, Variant: variant, Points: pts, KL: kl, Topics: app.NumTopics(m), Perplexity: cm.Perplexity, Iterations: cm.Iterations}
	b, err := jsonMarshal(data)
	if err != nil {
		return err
	}
	e := newMapEntry(b, data, nil)
	h.s.maps.put(key, e)
	return serveMap(c, e)
}

// contextMapErr answers an app.ContextMap error: 400 for a term that is not
// an OOV tag of the document, 422 for a document or vocabulary that cannot be
// mapped, the error itself otherwise.
func contextMapErr(err error) error {
	var ie *app.InputError
	var me *app.MapError
	switch {
	case errors.As(err, &ie):
		return httpErr(http.StatusBadRequest, "%s", ie.Reason)
	case errors.As(err, &me):
		return httpErr(http.StatusUnprocessableEntity, "%s", me.Reason)
	}
	return err
}
