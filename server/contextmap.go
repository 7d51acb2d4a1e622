package server

import (
	"context"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/store"
)

// contextMap: GET /api/models/:id/context-map?doc=ID[&corpus=ID][&term=OOV][&variant=]
// → mapData of the paper's Figure 7 (app.ContextMap), with kinds "positive",
// "negative", "oov" (feature-based) and "oov-avg" (concept-based), when this
// process computed it; else 404 with its state (notComputed). POST
// (computeContextMap) computes it.
func (h *modelsAPI) contextMap(c echo.Context) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	cm, key, _, err := h.s.contextMapReq(c.Request().Context(), row, m, q)
	if err != nil {
		return err
	}
	if e := h.s.maps.get(key); e != nil {
		return serveMap(c, e)
	}
	return h.s.notComputed(c, "the context map of document "+cm.Doc.ID, row.ID, "", q)
}

// computeContextMap: POST /api/models/:id/context-map {"doc","corpus"?,"term"?,"variant"?}
// computes the context map (a t-SNE of a few hundred points, at once) and
// answers it.
func (h *modelsAPI) computeContextMap(c echo.Context) error {
	q, err := jsonParams(c, "doc", "corpus", "term", "variant")
	if err != nil {
		return err
	}
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	e, err := h.s.startContextMap(c.Request().Context(), row, m, q)
	if err != nil {
		return err
	}
	return serveMap(c, e)
}

// contextMapReq checks a context map's parameters against ready model
// row/m and returns the map to compute, its key in memory and its corpus.
func (s *Server) contextMapReq(ctx context.Context, row *store.ModelRow, m *ce.Model, q url.Values) (*app.ContextMap, string, string, error) {
	docID := strings.TrimSpace(q.Get("doc"))
	if docID == "" {
		return nil, "", "", app.BadInput("doc", "is required")
	}
	variant, err := checkVariant(q.Get("variant"))
	if err != nil {
		return nil, "", "", err
	}
	corpusID := q.Get("corpus")
	if corpusID == "" {
		corpusID = row.CorpusID
	}
	crow, err := s.store.Corpus(ctx, corpusID)
	if err != nil {
		return nil, "", "", notFound(err, "corpus", corpusID)
	}
	doc, err := s.store.Document(ctx, corpusID, docID)
	if err != nil {
		return nil, "", "", notFound(err, "document", docID)
	}
	cm := &app.ContextMap{Model: m, Variant: ce.Variant(variant), Doc: *doc, Corpus: crow.Name, Term: strings.TrimSpace(q.Get("term"))}
	if err := cm.Check(); err != nil {
		return nil, "", "", err
	}
	// Laid out as the other maps' keys (model|variant|corpus|…), so that
	// deleting the model or the corpus forgets it (mapCache.dropIf).
	key := row.ID + "|" + mapKey(variant, "\ncontext "+docID+"\n"+cm.Term, []string{corpusID})
	return cm, key, corpusID, nil
}

// startContextMap returns the context map of q, computing it (once at a
// time per map) when it is not in memory.
func (s *Server) startContextMap(ctx context.Context, row *store.ModelRow, m *ce.Model, q url.Values) (*mapEntry, error) {
	cm, key, corpusID, err := s.contextMapReq(ctx, row, m, q)
	if err != nil {
		return nil, err
	}
	if e := s.maps.get(key); e != nil {
		return e, nil
	}
	return s.computing.Do(ctx, key, func() (*mapEntry, error) {
		if e := s.maps.get(key); e != nil {
			return e, nil
		}
		all, err := s.store.Documents(ctx, corpusID)
		if err != nil {
			return nil, err
		}
		for _, d := range all.Docs {
			if hasTag(d.Tags, cm.Term) {
				cm.Holding = append(cm.Holding, d)
			}
		}
		pts, kl, err := cm.Compute(ctx)
		if err != nil {
			return nil, err
		}
		data := &mapData{Term: cm.Term, Variant: string(cm.Variant), Points: pts, KL: kl, Topics: app.NumTopics(m), Perplexity: cm.Perplexity, Iterations: cm.Iterations}
		b, err := jsonMarshal(data)
		if err != nil {
			return nil, err
		}
		e := newMapEntry(b, data, nil)
		s.maps.put(key, e)
		return e, nil
	})
}
