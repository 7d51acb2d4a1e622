package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/tsne"
)

// mapPoint is one point of an explorer map (app.MapPoint; in the JSON, a
// column entry of mapData's columnar form, with the document's tags once per
// document).
type mapPoint = app.MapPoint

// mapData is the map API's answer.
type mapData struct {
	Term    string     `json:"term"`
	Variant string     `json:"variant"`
	Points  []mapPoint `json:"points"`
	KL      float64    `json:"kl"`
	// Perplexity and Iterations are what t-SNE used; 0 in a map stored
	// before the maps kept them.
	Perplexity float64 `json:"perplexity,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	// Topics is the number of topics of the model's LDA, the range of the
	// points' Topic; 0 in a map stored before the maps had topics.
	Topics int `json:"topics"`
}

// The JSON of a map is columnar: parallel arrays of coordinates and small
// integer ids, one entry per point, with the strings sent once — the
// documents (corpus, id, tags as indices into "tags"), the terms and the
// kinds. A point costs a few bytes: the objects of every point, each
// repeating its document's tags, made a 444-point map of a corpus of long
// documents 344 kB.
type (
	mapDocJSON struct {
		Corpus string `json:"corpus"`
		ID     string `json:"id"`
		Tags   []int  `json:"tags"`  // indices into mapDataJSON.Tags
		Topic  int    `json:"topic"` // the document's LDA topic, -1: none
	}
	mapDataJSON struct {
		Term    string       `json:"term"`
		Variant string       `json:"variant"`
		KL      float64      `json:"kl"`
		Perp    float64      `json:"perplexity,omitempty"`
		Iters   int          `json:"iterations,omitempty"`
		Topics  int          `json:"topics,omitempty"`
		X       []float64    `json:"x"`
		Y       []float64    `json:"y"`
		Doc     []int        `json:"doc"`     // index into docs
		TermOf  []int        `json:"term_of"` // index into terms
		Kind    []int        `json:"kind"`    // index into kinds
		Cluster []int        `json:"cluster"`
		Docs    []mapDocJSON `json:"docs"`
		Terms   []string     `json:"terms"`
		Kinds   []string     `json:"kinds"`
		Tags    []string     `json:"tags"`
	}
)

// MarshalJSON writes the map in its columnar form.
func (d mapData) MarshalJSON() ([]byte, error) {
	n := len(d.Points)
	out := mapDataJSON{Term: d.Term, Variant: d.Variant, KL: d.KL, Perp: d.Perplexity, Iters: d.Iterations, Topics: d.Topics,
		X: make([]float64, n), Y: make([]float64, n), Doc: make([]int, n), TermOf: make([]int, n),
		Kind: make([]int, n), Cluster: make([]int, n),
		Docs: []mapDocJSON{}, Terms: []string{}, Kinds: []string{}, Tags: []string{}}
	docs := map[[2]string]int{}
	terms, kinds, tags := map[string]int{}, map[string]int{}, map[string]int{}
	index := func(m map[string]int, list *[]string, s string) int {
		k, ok := m[s]
		if !ok {
			k = len(*list)
			m[s] = k
			*list = append(*list, s)
		}
		return k
	}
	for i, p := range d.Points {
		key := [2]string{p.Corpus, p.DocID}
		k, ok := docs[key]
		if !ok {
			k = len(out.Docs)
			docs[key] = k
			doc := mapDocJSON{Corpus: p.Corpus, ID: p.DocID, Tags: make([]int, len(p.Tags)), Topic: p.Topic}
			for j, t := range p.Tags {
				doc.Tags[j] = index(tags, &out.Tags, t)
			}
			out.Docs = append(out.Docs, doc)
		}
		out.X[i], out.Y[i], out.Doc[i], out.Cluster[i] = p.X, p.Y, k, p.Cluster
		out.TermOf[i] = index(terms, &out.Terms, p.Term)
		out.Kind[i] = index(kinds, &out.Kinds, p.Kind)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes, each point getting its
// document, term, kind and tags back.
func (d *mapData) UnmarshalJSON(b []byte) error {
	var in mapDataJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	n := len(in.X)
	if len(in.Y) != n || len(in.Doc) != n || len(in.TermOf) != n || len(in.Kind) != n || len(in.Cluster) != n {
		return fmt.Errorf("map: columns of %d, %d, %d, %d, %d and %d points", n, len(in.Y), len(in.Doc), len(in.TermOf), len(in.Kind), len(in.Cluster))
	}
	*d = mapData{Term: in.Term, Variant: in.Variant, KL: in.KL, Perplexity: in.Perp, Iterations: in.Iters, Topics: in.Topics, Points: make([]mapPoint, n)}
	docTags := make([][]string, len(in.Docs))
	for k, doc := range in.Docs {
		docTags[k] = make([]string, len(doc.Tags))
		for j, t := range doc.Tags {
			if t < 0 || t >= len(in.Tags) {
				return fmt.Errorf("map document %d: tag %d of %d", k, t, len(in.Tags))
			}
			docTags[k][j] = in.Tags[t]
		}
	}
	for i := range n {
		k, t, c := in.Doc[i], in.TermOf[i], in.Kind[i]
		if k < 0 || k >= len(in.Docs) || t < 0 || t >= len(in.Terms) || c < 0 || c >= len(in.Kinds) {
			return fmt.Errorf("map point %d: document %d of %d, term %d of %d, kind %d of %d", i, k, len(in.Docs), t, len(in.Terms), c, len(in.Kinds))
		}
		d.Points[i] = mapPoint{X: in.X[i], Y: in.Y[i], Term: in.Terms[t], DocID: in.Docs[k].ID, Kind: in.Kinds[c],
			Corpus: in.Docs[k].Corpus, Cluster: in.Cluster[i], Topic: in.Docs[k].Topic, Tags: docTags[k]}
	}
	return nil
}

// storedMapJSON returns a stored map's JSON in the current columnar form:
// maps stored by earlier versions list one object per point ("points") and are
// converted; other bytes are returned as they are.
func storedMapJSON(b []byte) []byte {
	var old struct {
		Term, Variant string
		KL            float64 `json:"kl"`
		Points        []struct {
			X, Y         float64
			Term         string
			DocID        string `json:"doc_id"`
			Kind, Corpus string
			Cluster, Doc int
		}
		Docs []struct {
			Corpus, ID string
			Tags       []string
		}
	}
	if json.Unmarshal(b, &old) != nil || old.Points == nil {
		return b
	}
	d := mapData{Term: old.Term, Variant: old.Variant, KL: old.KL, Points: make([]mapPoint, len(old.Points))}
	for i, p := range old.Points {
		d.Points[i] = mapPoint{X: p.X, Y: p.Y, Term: p.Term, DocID: p.DocID, Kind: p.Kind, Corpus: p.Corpus, Cluster: p.Cluster}
		if p.Doc >= 0 && p.Doc < len(old.Docs) {
			d.Points[i].Tags = old.Docs[p.Doc].Tags
		}
	}
	nb, err := json.Marshal(d)
	if err != nil {
		return b
	}
	return nb
}

// termMapJSON brings a stored term map to the current form: the former
// object-per-point form is converted (storedMapJSON), and a map stored before
// the maps had LDA topics gets each document's topic from model m. Other
// bytes, and bytes it cannot read, are returned as they are.
func termMapJSON(m *ce.Model, b []byte) []byte {
	b = storedMapJSON(b)
	var d mapData
	if json.Unmarshal(b, &d) != nil || d.Topics > 0 {
		return b
	}
	d.Topics = app.SetMapTopics(m, d.Points)
	nb, err := json.Marshal(d)
	if err != nil {
		return b
	}
	return nb
}

// maxMapTerms bounds the terms of one instance map.
const maxMapTerms = 10

// mapTerms reads a map's term parameter: one vocabulary term, or several
// separated by commas (the instances of each in one map; a vocabulary term
// that holds a comma is taken whole). Repeated terms count once. Errors: 400
// without a term or with more than maxMapTerms, 404 naming a term outside the
// vocabulary with the closest terms. A term is matched as typed tags are
// (ce.Model.Lookup: exactly, else ignoring case when one term matches).
func mapTerms(m *ce.Model, raw string) ([]string, error) {
	raw = strings.TrimSpace(raw)
	v := m.Vocabulary()
	if _, ok := v.ID(raw); ok {
		return []string{raw}, nil
	}
	var terms []string
	for _, t := range textlist.Split(raw) {
		id, _, ok := m.Lookup(t)
		if !ok {
			if s := m.Suggest(t, ce.MaxSuggest); len(s) > 0 {
				return nil, &app.NotFoundError{What: "term", ID: t, Reason: fmt.Sprintf("term %q is not in the model's vocabulary; did you mean %s?", t, strings.Join(s, ", "))}
			}
			return nil, &app.NotFoundError{What: "term", ID: t, Reason: fmt.Sprintf("term %q is not in the model's vocabulary, and no term is close to it", t)}
		}
		if t = v.Term(id); !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	switch {
	case len(terms) == 0:
		return nil, app.BadInput("term", "is required")
	case len(terms) > maxMapTerms:
		return nil, app.BadInput("term", "at most %d terms in one map, got %d", maxMapTerms, len(terms))
	}
	return terms, nil
}

// mapReqKey is the fast-path key of a map request without overlay documents:
// model id, variant (defaulted), raw corpus list and term; "" with docs.
func mapReqKey(c echo.Context) string {
	q := c.QueryParams()
	if q.Get("docs") != "" {
		return ""
	}
	variant := q.Get("variant")
	if variant == "" {
		variant = string(ce.DefaultVariant)
	}
	return c.Param("id") + "\x00" + variant + "\x00" + q.Get("corpus") + "\x00" + strings.TrimSpace(q.Get("term"))
}

// Prepared header values of map responses.
var (
	hdrJSON      = []string{echo.MIMEApplicationJSON}
	hdrBinary    = []string{echo.MIMEOctetStream}
	hdrGzip      = []string{"gzip"}
	hdrVaryAE    = []string{"Accept-Encoding"}
	hdrMapCache  = []string{"private, max-age=60"}
	hdrNoSniff   = []string{"nosniff"}
	hdrCSP       = []string{contentSecurityPolicy}
	hdrReferrer  = []string{"same-origin"}
	hdrKeyETag   = "Etag" // canonical form of ETag (textproto.CanonicalMIMEHeaderKey)
	hdrKeyLength = "Content-Length"
)

// serveMap answers a cached map from its prepared bytes: gzip-compressed when
// the client accepts it (compressed once, at the best level: a 10,000-point
// map shrinks about 7×), with an ETag for revalidation (304) and an explicit
// Content-Length (no chunked encoding). No encoding, hashing or allocation of
// the body happens per request.
func serveMap(c echo.Context, e *mapEntry) error {
	w := c.Response()
	h := w.Header()
	h["Content-Type"] = hdrJSON
	if e.ctype != nil {
		h["Content-Type"] = e.ctype
	}
	h["Cache-Control"] = hdrMapCache
	h[hdrKeyETag] = e.etagHdr
	h["Vary"] = hdrVaryAE
	r := c.Request()
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, e.etag) {
		delete(h, "Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	body := e.json
	if e.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body = e.gz
		h["Content-Encoding"] = hdrGzip
		h[hdrKeyLength] = e.gzLen
	} else {
		h[hdrKeyLength] = e.jsonLen
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(body)
	return err
}

// etagMatches reports whether an If-None-Match header lists etag (or is "*").
func etagMatches(header, etag string) bool {
	for _, f := range strings.Split(header, ",") {
		f = strings.TrimSpace(f)
		if f == "*" || strings.TrimPrefix(f, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header admits gzip (RFC 9110
// §12.5.3: listed, or "*", without q=0).
func acceptsGzip(header string) bool {
	for header != "" {
		var f string
		f, header, _ = strings.Cut(header, ",")
		name, params, _ := strings.Cut(f, ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return !(strings.HasPrefix(q, "q=0") && strings.Trim(q[3:], ".0") == "")
	}
	return false
}

// mapJob starts (or joins) the background job computing a base map and,
// with docs, then the overlay of those documents on it (termMap.overlayKey).
func (s *Server) mapJob(modelID, variant, term string, corpora, docs []string) (*store.JobRow, error) {
	args := map[string]any{"variant": variant, "term": term, "corpora": corpora}
	if len(docs) > 0 {
		args["docs"] = docs
	}
	return s.mapJobFor(modelID, mapKey(variant, term, corpora), "map", args,
		func(ctx context.Context, rep *jobs.Reporter) error {
			if err := s.computeMap(ctx, rep, modelID, variant, term, corpora); err != nil || len(docs) == 0 {
				return err
			}
			row, m, err := s.model(ctx, modelID)
			if err != nil {
				return err
			}
			t := &termMap{row: row, m: m, variant: variant, term: term, corpora: corpora, docs: docs}
			if base := s.maps.get(t.cacheKey()); base != nil && base.emb != nil {
				if _, err := s.overlayEntry(ctx, t, base); err != nil {
					return fmt.Errorf("the map is computed, its overlay of documents %s is not: %w", strings.Join(docs, ", "), err)
				}
			}
			return nil
		})
}

// mapJobFor starts the background job (of kind, with args) computing the map
// stored under a model's map key, or joins the one still running for it.
func (s *Server) mapJobFor(modelID, key, kind string, args map[string]any, run func(context.Context, *jobs.Reporter) error) (*store.JobRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mapJobs == nil {
		s.mapJobs = map[string]string{}
	}
	if id, ok := s.mapJobs[modelID+"|"+key]; ok {
		if j, _, err := s.jobs.Get(s.root, id); err == nil && !j.Finished() {
			return j, nil
		}
	}
	job, err := s.jobs.Submit(kind, modelID, args, run)
	if err != nil {
		return nil, err
	}
	s.mapJobs[modelID+"|"+key] = job.ID
	return job, nil
}

// loadMap returns the in-memory map of a model's map key, loading it from the
// store once when only the store has it (concurrent requests wait for the
// first one rather than each reading and compressing the same map); nil when
// neither has it. upgrade, if not nil, brings stored bytes to the current
// form (termMapJSON, spaceMapJSON).
func (s *Server) loadMap(ctx context.Context, modelID, key string, upgrade func(*ce.Model, []byte) []byte) *mapEntry {
	return s.loadStored(ctx, modelID, key, func(b []byte) *mapEntry {
		if upgrade != nil {
			if _, m, err := s.model(ctx, modelID); err == nil {
				b = upgrade(m, b)
			}
		}
		return newMapEntry(b, nil, nil)
	})
}

// loadStored returns the in-memory entry of a model's map key, or, when only
// the store has the map, the entry entry makes of its stored bytes (kept in
// memory); concurrent requests wait for the first one. nil when neither has it.
func (s *Server) loadStored(ctx context.Context, modelID, key string, entry func([]byte) *mapEntry) *mapEntry {
	if e := s.maps.get(modelID + "|" + key); e != nil {
		return e
	}
	s.mapLoad.Lock()
	defer s.mapLoad.Unlock()
	if e := s.maps.get(modelID + "|" + key); e != nil {
		return e
	}
	b, err := s.store.Map(ctx, modelID, key)
	if err != nil {
		return nil
	}
	e := entry(b)
	s.maps.put(modelID+"|"+key, e)
	return e
}

// saveMap stores a computed map under a model's map key and keeps it in
// memory with its data and t-SNE state (for overlays) when given.
func (s *Server) saveMap(ctx context.Context, modelID, key string, b []byte, data *mapData, emb *tsne.Embedding) error {
	if err := s.store.PutMap(context.WithoutCancel(ctx), modelID, key, b); err != nil {
		return err
	}
	s.maps.put(modelID+"|"+key, newMapEntry(b, data, emb))
	return nil
}

// maxMapPoints bounds a base map (t-SNE cost and page weight).
const maxMapPoints = 20000

// computeMap computes the base map of a term's instances in the corpora
// (app.InstanceMap) with model modelID and stores it.
func (s *Server) computeMap(ctx context.Context, rep *jobs.Reporter, modelID, variant, term string, corpora []string) error {
	if err := ctx.Err(); err != nil {
		return err // cancelled while queued
	}
	_, m, err := s.model(ctx, modelID)
	if err != nil {
		return err
	}
	terms, err := mapTerms(m, term)
	if err != nil {
		return err
	}
	im := &app.InstanceMap{Model: m, Variant: ce.Variant(variant), Terms: terms, MaxPoints: maxMapPoints, Progress: rep.Progress}
	for _, cid := range corpora {
		c, err := s.store.Documents(ctx, cid)
		if err != nil {
			return err
		}
		im.Corpora = append(im.Corpora, c)
	}
	pts, emb, err := im.Compute(ctx)
	if err != nil {
		return err
	}
	data := &mapData{Term: term, Variant: variant, Points: pts, KL: emb.KL, Topics: app.NumTopics(m),
		Perplexity: app.Round4(emb.Perplexity), Iterations: emb.Iterations}
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := s.saveMap(ctx, modelID, mapKey(variant, term, corpora), b, data, emb); err != nil {
		return err
	}
	rep.Progress(1, "done", fmt.Sprintf("%d points, KL %.3f", len(pts), emb.KL))
	return nil
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}

// overlay adds to a base map the accompany terms of the chosen documents (and
// their OOV tags, placed by the concept-based method of §4.4) with Transform
// (app.OverlayPoints, app.PlaceOverlay), the documents looked up in the
// map's corpora in order.
func (s *Server) overlay(ctx context.Context, m *ce.Model, e *mapEntry, variant string, corpora, docIDs []string) (*mapData, error) {
	if len(docIDs) > 50 {
		return nil, app.BadInput("docs", "at most 50 documents")
	}
	base := map[string]bool{} // the base map's terms
	for _, p := range e.data.Points {
		if p.Kind == "instance" {
			base[p.Term] = true
		}
	}
	var pts []mapPoint
	var x [][]float64
	for _, id := range docIDs {
		var found bool
		for _, cid := range corpora {
			d, err := s.store.Document(ctx, cid, id)
			if err != nil {
				continue
			}
			found = true
			crow, err := s.store.Corpus(ctx, cid)
			if err != nil {
				return nil, err
			}
			dp, dx, err := app.OverlayPoints(m, ce.Variant(variant), app.OverlayDoc{ID: d.ID, Corpus: crow.Name, Tags: d.Tags}, base)
			if err != nil {
				return nil, app.Unplaceable(fmt.Errorf("document %q: %w", id, err))
			}
			pts, x = append(pts, dp...), append(x, dx...)
			break
		}
		if !found {
			return nil, &app.NotFoundError{What: "document", ID: id, Reason: fmt.Sprintf("document %q not found in the map's corpora", id)}
		}
	}
	out := &mapData{Term: e.data.Term, Variant: e.data.Variant, KL: e.data.KL, Perplexity: e.data.Perplexity, Iterations: e.data.Iterations,
		Topics: e.data.Topics, Points: append([]mapPoint(nil), e.data.Points...)}
	if len(x) == 0 {
		return out, nil
	}
	if err := app.PlaceOverlay(ctx, e.emb, pts, x); err != nil {
		return nil, err
	}
	out.Points = append(out.Points, pts...)
	return out, nil
}
