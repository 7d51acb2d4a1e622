package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/store"
)

// A GET never starts work (docs/security.md): every map route comes in two.
// GET answers a computed map (200) or, when it is not computed, 404 with its
// state and how to compute it (mapStateJSON). POST, with the GET's query
// parameters as a JSON object, computes it: at once when that is quick (a
// context map, an overlay of documents, the whole space's neighbours), else
// by a background job, answering 202 {"job_id","state"}; a map computed
// already is answered 200 and nothing starts. POSTs are refused from other
// sites (checkCrossSite) and need a JSON body (requireJSON), which no page of
// another site can send.

// stateNotComputed is the state of a map that no job of this process is
// computing or has failed to compute.
const stateNotComputed = "not-computed"

// mapStateJSON is the answer to a GET of a map that is not computed.
type mapStateJSON struct {
	Error string `json:"error"`
	// State is stateNotComputed, or the state of the job of this process
	// that computes the map (queued, running) or last failed to (failed,
	// cancelled, interrupted), with its id and message.
	State   string      `json:"state"`
	JobID   string      `json:"job_id,omitempty"`
	Message string      `json:"message,omitempty"`
	Compute computeJSON `json:"compute"`
}

// computeJSON is the request that computes a map.
type computeJSON struct {
	Method string            `json:"method"`
	URL    string            `json:"url"`
	Body   map[string]string `json:"body"`
}

// jsonParams reads the body of a compute route, a JSON object, as the query
// parameters of its GET route: each field is one of names and holds a
// string or a number (null: absent). Unknown fields are refused (400), and
// so is a missing body.
func jsonParams(c echo.Context, names ...string) (url.Values, error) {
	var raw map[string]json.RawMessage
	if err := bindJSON(c, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, app.BadInput("", "the body must be a JSON object with the map's parameters (%s)", strings.Join(names, ", "))
	}
	q := url.Values{}
	for k, v := range raw {
		if !slices.Contains(names, k) {
			return nil, app.BadInput("", "unknown field %q: the fields are %s", shown(k), strings.Join(names, ", "))
		}
		var s string
		var n json.Number
		switch {
		case string(v) == "null":
		case json.Unmarshal(v, &s) == nil:
			q.Set(k, s)
		case json.Unmarshal(v, &n) == nil:
			q.Set(k, n.String())
		default:
			return nil, app.BadInput("", "field %q must be a string or a number", k)
		}
	}
	return q, nil
}

// notComputed answers a GET of a map (what) that is not computed: 404 with
// the state of the job computing the model's map key (none: "" or no job),
// and the POST that computes it, with the request's parameters q.
func (s *Server) notComputed(c echo.Context, what, modelID, key string, q url.Values) error {
	path := c.Request().URL.Path
	st := mapStateJSON{State: stateNotComputed, Compute: computeJSON{Method: http.MethodPost, URL: path, Body: map[string]string{}}}
	for k := range q {
		st.Compute.Body[k] = q.Get(k)
	}
	if j := s.mapJobOf(modelID, key); j != nil && j.State != store.JobDone {
		st.State, st.JobID, st.Message = j.State, j.ID, j.Message
	}
	switch st.State {
	case stateNotComputed:
		st.Error = fmt.Sprintf("%s is not computed: POST %s with these parameters to compute it", what, path)
	case store.JobQueued, store.JobRunning:
		st.Error = fmt.Sprintf("%s is being computed (job %s, %s)", what, st.JobID, st.State)
	default:
		st.Error = fmt.Sprintf("the computation of %s %s: %s; POST %s to compute it again", what, st.State, st.Message, path)
	}
	return &notComputedError{st}
}

// notComputedError is the answer to a GET of a map that is not computed: a
// not-found whose API body is the map's state and the request that
// computes it.
type notComputedError struct{ state mapStateJSON }

func (e *notComputedError) Error() string { return e.state.Error }

// Is matches app.ErrNotFound.
func (e *notComputedError) Is(target error) bool { return target == app.ErrNotFound }

func (e *notComputedError) apiBody() any { return e.state }

// mapJobOf returns the last job this process started for a model's map key,
// or nil.
func (s *Server) mapJobOf(modelID, key string) *store.JobRow {
	if key == "" {
		return nil
	}
	s.mu.Lock()
	id, ok := s.mapJobs[modelID+"|"+key]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	j, _, err := s.jobs.Get(s.root, id)
	if err != nil {
		return nil
	}
	return j
}

// accepted answers 202 with the job that computes a map.
func accepted(c echo.Context, job *store.JobRow) error {
	return c.JSON(http.StatusAccepted, map[string]string{"job_id": job.ID, "state": job.State})
}

// termMap is a term map request checked against its ready model.
type termMap struct {
	row     *store.ModelRow
	m       *ce.Model
	variant string
	term    string // the terms, comma-joined
	corpora []string
	docs    []string // documents to overlay
}

// key is the base map's key in the store (mapKey); cacheKey its key in
// memory; overlayKey the key in memory of its overlay of docs.
func (t *termMap) key() string      { return mapKey(t.variant, t.term, t.corpora) }
func (t *termMap) cacheKey() string { return t.row.ID + "|" + t.key() }
func (t *termMap) overlayKey() string {
	return t.row.ID + "|" + mapKey(t.variant, t.term+"\ndocs "+strings.Join(t.docs, ","), t.corpora)
}

// maxOverlayDocs bounds the documents of one overlay.
const maxOverlayDocs = 50

// resolveTermMap checks a term map's parameters (term, variant, corpus,
// docs) against ready model row/m: 400, or 404 naming a term outside the
// vocabulary or an unknown corpus.
func (s *Server) resolveTermMap(ctx context.Context, row *store.ModelRow, m *ce.Model, q url.Values) (*termMap, error) {
	terms, err := mapTerms(m, q.Get("term"))
	if err != nil {
		return nil, err
	}
	variant, err := checkVariant(q.Get("variant"))
	if err != nil {
		return nil, err
	}
	t := &termMap{row: row, m: m, variant: variant, term: strings.Join(terms, ","),
		corpora: textlist.Split(q.Get("corpus")), docs: textlist.Split(q.Get("docs"))}
	if len(t.corpora) == 0 {
		t.corpora = []string{row.CorpusID}
	}
	for _, id := range t.corpora {
		if _, err := s.store.Corpus(ctx, id); err != nil {
			return nil, notFound(err, "corpus", id)
		}
	}
	if len(t.docs) > maxOverlayDocs {
		return nil, app.BadInput("docs", "at most %d documents", maxOverlayDocs)
	}
	return t, nil
}

// termMapEntry returns a term map's base map from memory or the store, nil
// when it is not computed.
func (s *Server) termMapEntry(ctx context.Context, t *termMap) *mapEntry {
	if e := s.maps.get(t.cacheKey()); e != nil {
		return e
	}
	return s.loadMap(ctx, t.row.ID, t.key(), termMapJSON)
}

// startTermMap returns a computed term map (its overlay of t.docs when it
// has documents), or starts computing it: the base map by a job (which then
// overlays the documents), an overlay on a base map in memory at once.
func (s *Server) startTermMap(ctx context.Context, t *termMap) (*mapEntry, *store.JobRow, error) {
	base := s.termMapEntry(ctx, t)
	if len(t.docs) == 0 {
		if base != nil {
			return base, nil, nil
		}
		job, err := s.mapJob(t.row.ID, t.variant, t.term, t.corpora, nil)
		return nil, job, err
	}
	if e := s.maps.get(t.overlayKey()); e != nil {
		return e, nil, nil
	}
	if base != nil && base.emb != nil {
		e, err := s.overlayEntry(ctx, t, base)
		return e, nil, err
	}
	// The t-SNE state an overlay is placed on lives only in the memory of
	// the process that computed the map: a map read from the store is
	// computed again (the same map: t-SNE is seeded).
	job, err := s.mapJob(t.row.ID, t.variant, t.term, t.corpora, t.docs)
	return nil, job, err
}

// overlayEntry places t's documents on base map (computed in this process)
// and keeps the result in memory under t.overlayKey.
func (s *Server) overlayEntry(ctx context.Context, t *termMap, base *mapEntry) (*mapEntry, error) {
	return s.computing.Do(ctx, t.overlayKey(), func() (*mapEntry, error) {
		if e := s.maps.get(t.overlayKey()); e != nil {
			return e, nil
		}
		out, err := s.overlay(ctx, t.m, base, t.variant, t.corpora, t.docs)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		e := newMapEntry(b, out, nil)
		s.maps.put(t.overlayKey(), e)
		return e, nil
	})
}

// mapPoints: GET /api/models/:id/map?term=T[,T…][&docs=ID,ID][&corpus=ID,ID][&variant=]
// answers the base map of the terms' instances in the chosen corpora, or
// its overlay of documents (accompanying terms of docs, OOV terms of those
// documents, placed with tsne's Transform), when computed; else 404 with its
// state (notComputed). POST computes it (computeMapPoints).
func (h *modelsAPI) mapPoints(c echo.Context) error {
	// Fast path: this exact request was answered from the cache before (the
	// model, its corpora and the term were checked then); no store access.
	reqKey := mapReqKey(c)
	if reqKey != "" {
		if e := h.s.maps.lookup(reqKey); e != nil {
			return serveMap(c, e)
		}
	}
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	t, err := h.s.resolveTermMap(c.Request().Context(), row, m, q)
	if err != nil {
		return err
	}
	if len(t.docs) == 0 {
		if e := h.s.termMapEntry(c.Request().Context(), t); e != nil {
			h.s.maps.link(reqKey, t.cacheKey()) // next time the fast path answers
			return serveMap(c, e)
		}
		return h.s.notComputed(c, "the map of "+t.term, row.ID, t.key(), q)
	}
	if e := h.s.maps.get(t.overlayKey()); e != nil {
		return serveMap(c, e)
	}
	return h.s.notComputed(c, "the map of "+t.term+" with documents "+strings.Join(t.docs, ", "), row.ID, t.key(), q)
}

// computeMapPoints: POST /api/models/:id/map {"term","corpus"?,"docs"?,"variant"?}
// computes the map mapPoints answers: 200 with it when it is computed (or
// an overlay could be placed at once), else 202 with the job computing it.
func (h *modelsAPI) computeMapPoints(c echo.Context) error {
	q, err := jsonParams(c, "term", "corpus", "docs", "variant")
	if err != nil {
		return err
	}
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	t, err := h.s.resolveTermMap(c.Request().Context(), row, m, q)
	if err != nil {
		return err
	}
	e, job, err := h.s.startTermMap(c.Request().Context(), t)
	if err != nil {
		return err
	}
	if e != nil {
		return serveMap(c, e)
	}
	return accepted(c, job)
}
