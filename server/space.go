package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// The whole-space map of a model: one point per vocabulary term, the mean of
// the term's CE over the training documents that hold it (ce.Model.TermCentroids),
// projected to 2-D by t-SNE or by PCA. Its JSON lists the terms once and the
// coordinates as parallel arrays, so that a point costs a few bytes on the wire.

// Projections of the whole-space map.
const (
	projTSNE = app.ProjectTSNE
	projPCA  = app.ProjectPCA
)

// spaceMap is the whole-space map API's answer (app.SpaceMap).
type spaceMap = app.SpaceMap

// tsneSettings are the t-SNE controls of a whole-space map: perplexity 0
// means min(30, (n−1)/3).
type tsneSettings struct {
	Perplexity float64
	Iterations int
	Seed       uint64
}

// Bounds of the t-SNE controls.
const (
	minTSNEIters, maxTSNEIters = 250, 5000
	maxPerplexity              = 100
)

func (t tsneSettings) String() string {
	return fmt.Sprintf("p=%g i=%d s=%d", t.Perplexity, t.Iterations, t.Seed)
}

// spaceKey is the map-cache key of a whole-space map (mapKey's layout; the
// "term" field starts with a newline, which no tag holds). "+oov" marks the
// maps that hold the corpus's tags outside the vocabulary: maps stored before
// them are not served (their key lacks it) and are computed again.
func spaceKey(variant, projection, corpusID string, ts tsneSettings) string {
	term := "\nspace+oov " + projection
	if projection == projTSNE {
		term += " " + ts.String()
	}
	return mapKey(variant, term, []string{corpusID})
}

// parseTSNE reads the t-SNE controls of a request (perplexity, iters, seed),
// with the defaults 0 (automatic), 1000 and 1.
func parseTSNE(q url.Values) (tsneSettings, error) {
	ts := tsneSettings{Iterations: 1000, Seed: 1}
	if v := q.Get("perplexity"); v != "" {
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || !(p >= 1 && p <= maxPerplexity) {
			return ts, app.BadInput("perplexity", "must be a number in 1..%d", maxPerplexity)
		}
		ts.Perplexity = p
	}
	if v := q.Get("iters"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < minTSNEIters || n > maxTSNEIters {
			return ts, app.BadInput("iters", "must be an integer in %d..%d", minTSNEIters, maxTSNEIters)
		}
		ts.Iterations = n
	}
	if v := q.Get("seed"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return ts, app.BadInput("seed", "must be a non-negative integer")
		}
		ts.Seed = n
	}
	return ts, nil
}

// centroidSet is a model's term centroids in one variant, and those of the
// tags of its corpus outside its vocabulary.
type centroidSet struct {
	terms  []string
	vecs   [][]float64
	counts []int
	oov    app.SpaceTerms
}

// centroidCache keeps the term centroids of recently used models (model id +
// variant → set), computed once per process.
type centroidCache struct {
	mu sync.Mutex
	m  map[string]*centroidSet
}

func (c *centroidCache) get(k string) *centroidSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *centroidCache) put(k string, v *centroidSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= 16 {
		c.m = map[string]*centroidSet{} // a handful of models at a time; start afresh past that
	}
	c.m[k] = v
}

func (c *centroidCache) dropModel(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if strings.HasPrefix(k, id+"|") {
			delete(c.m, k)
		}
	}
}

// termCentroids returns the term centroids of a model in a variant over its
// corpus's training documents (the split the model was trained with), and the
// feature-based centroids of the tags outside its vocabulary over all of the
// corpus's documents (ce.Model.OOVCentroids).
func (s *Server) termCentroids(ctx context.Context, row *store.ModelRow, m *ce.Model, variant string) (*centroidSet, error) {
	key := row.ID + "|" + variant
	if cs := s.centroids.get(key); cs != nil {
		return cs, nil
	}
	return s.centroiding.Do(ctx, key, func() (*centroidSet, error) {
		if cs := s.centroids.get(key); cs != nil {
			return cs, nil
		}
		return s.computeCentroids(ctx, row, m, variant)
	})
}

// computeCentroids computes and caches what termCentroids returns.
func (s *Server) computeCentroids(ctx context.Context, row *store.ModelRow, m *ce.Model, variant string) (*centroidSet, error) {
	key := row.ID + "|" + variant
	crow, err := s.store.CorpusWithSplit(ctx, row.CorpusID)
	if err != nil {
		return nil, notFound(err, "corpus", row.CorpusID)
	}
	c, err := s.store.Documents(ctx, row.CorpusID)
	if err != nil {
		return nil, notFound(err, "corpus", row.CorpusID)
	}
	split := trainSplit(crow, c, m.Info().SplitSeed)
	docs := make([][]string, 0, len(split.Train))
	for _, i := range split.Train {
		docs = append(docs, c.Docs[i].Tags)
	}
	vecs, counts, err := m.TermCentroids(ctx, ce.Variant(variant), docs)
	if err != nil {
		return nil, err
	}
	v := m.Vocabulary()
	cs := &centroidSet{terms: make([]string, v.Len()), vecs: vecs, counts: counts}
	for i := range cs.terms {
		cs.terms[i] = v.Term(i)
	}
	all := make([][]string, len(c.Docs))
	for i, d := range c.Docs {
		all[i] = d.Tags
	}
	if cs.oov.Terms, cs.oov.Vecs, cs.oov.Counts, err = m.OOVCentroids(ctx, ce.Variant(variant), all); err != nil {
		return nil, err
	}
	s.centroids.put(key, cs)
	return cs, nil
}

// spaceParams reads a whole-space map's parameters: the variant, the
// projection (default t-SNE) and t-SNE's controls (parseTSNE).
func spaceParams(q url.Values) (variant, proj string, ts tsneSettings, err error) {
	if variant, err = checkVariant(q.Get("variant")); err != nil {
		return
	}
	switch proj = q.Get("projection"); proj {
	case "":
		proj = projTSNE
	case projTSNE, projPCA:
	default:
		err = app.BadInput("projection", "must be %q or %q", projTSNE, projPCA)
		return
	}
	ts, err = parseTSNE(q)
	return
}

// spaceMap: GET /api/models/:id/space[?variant=siamese-ce|ce][&projection=tsne|pca]
// [&perplexity=P][&iters=N][&seed=S] — the whole-space map (one point per
// vocabulary term); perplexity, iters and seed are t-SNE's. Answered when
// computed and stored, else 404 with its state (notComputed); POST computes
// it (computeSpaceMap).
func (h *modelsAPI) spaceMap(c echo.Context) error {
	row, _, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	variant, proj, ts, err := spaceParams(q)
	if err != nil {
		return err
	}
	key := spaceKey(variant, proj, row.CorpusID, ts)
	if e := h.s.loadMap(c.Request().Context(), row.ID, key, spaceMapJSON); e != nil {
		return serveMap(c, e)
	}
	return h.s.notComputed(c, "the map of the whole space", row.ID, key, q)
}

// computeSpaceMap: POST /api/models/:id/space {"variant"?,"projection"?,
// "perplexity"?,"iters"?,"seed"?} — 200 with the whole-space map when it is
// computed, else 202 with the background job computing it.
func (h *modelsAPI) computeSpaceMap(c echo.Context) error {
	q, err := jsonParams(c, "variant", "projection", "perplexity", "iters", "seed")
	if err != nil {
		return err
	}
	row, _, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	variant, proj, ts, err := spaceParams(q)
	if err != nil {
		return err
	}
	e, job, err := h.s.startSpace(c.Request().Context(), row, variant, proj, ts)
	if err != nil {
		return err
	}
	if e != nil {
		return serveMap(c, e)
	}
	return accepted(c, job)
}

// startSpace returns a stored whole-space map, or starts (or joins) the job
// computing it.
func (s *Server) startSpace(ctx context.Context, row *store.ModelRow, variant, proj string, ts tsneSettings) (*mapEntry, *store.JobRow, error) {
	if e := s.loadMap(ctx, row.ID, spaceKey(variant, proj, row.CorpusID, ts), spaceMapJSON); e != nil {
		return e, nil, nil
	}
	job, err := s.spaceJob(row, variant, proj, ts)
	return nil, job, err
}

// spaceJob starts (or joins) the job computing a whole-space map.
func (s *Server) spaceJob(row *store.ModelRow, variant, proj string, ts tsneSettings) (*store.JobRow, error) {
	modelID := row.ID
	return s.mapJobFor(modelID, spaceKey(variant, proj, row.CorpusID, ts), "space-map",
		map[string]any{"variant": variant, "projection": proj, "tsne": ts.String()},
		func(ctx context.Context, rep *jobs.Reporter) error {
			return s.computeSpace(ctx, rep, modelID, variant, proj, ts)
		})
}

// computeSpace computes and stores a whole-space map.
func (s *Server) computeSpace(ctx context.Context, rep *jobs.Reporter, modelID, variant, proj string, ts tsneSettings) error {
	out, err := s.spaceEmbedding(ctx, rep.Progress, modelID, variant, proj, ts)
	if err != nil {
		return err
	}
	rep.Progress(1, "done", fmt.Sprintf("%d terms", len(out.Terms)))
	return nil
}

// spaceEmbedding computes and stores a whole-space map and returns it with
// its t-SNE embedding (out.Emb, kept in memory with the map too: what the
// instance map places its points in).
func (s *Server) spaceEmbedding(ctx context.Context, progress app.Progress, modelID, variant, proj string, ts tsneSettings) (*app.SpaceMap, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	row, m, err := s.model(ctx, modelID)
	if err != nil {
		return nil, err
	}
	progress(0.02, "embedding", "averaging every term's CE over its training documents")
	cs, err := s.termCentroids(ctx, row, m, variant)
	if err != nil {
		return nil, err
	}
	sp := app.Space{Variant: variant, Projection: proj, Perplexity: ts.Perplexity, Iterations: ts.Iterations, Seed: ts.Seed}
	out, err := sp.Compute(ctx, app.SpaceTerms{Terms: cs.terms, Vecs: cs.vecs, Counts: cs.counts}, cs.oov, progress)
	if err != nil {
		return nil, err
	}
	out.SetTopics(m)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := s.saveMap(ctx, modelID, spaceKey(variant, proj, row.CorpusID, ts), b, nil, out.Emb); err != nil {
		return nil, err
	}
	return out, nil
}

// spaceMapJSON brings a stored whole-space map to the current form: one
// stored before the maps had LDA topics gets its terms' topics from model m.
// Other bytes, and bytes it cannot read, are returned as they are.
func spaceMapJSON(m *ce.Model, b []byte) []byte {
	var sm app.SpaceMap
	if json.Unmarshal(b, &sm) != nil || sm.Topics > 0 || len(sm.Terms) == 0 {
		return b
	}
	sm.SetTopics(m)
	nb, err := json.Marshal(sm)
	if err != nil {
		return b
	}
	return nb
}

// maxSpaceK bounds the neighbours listed by spaceNeighbours.
const maxSpaceK = 100

// spaceNeighbours: GET /api/models/:id/space/neighbours?term=T[&k=10][&variant=]
// [&metric=euclidean|cosine] — the k vocabulary terms nearest to T by the
// Euclidean (default) or cosine distance of their centroids (the space the
// whole-space map projects), nearest first. T may
// be a tag of the corpus outside the vocabulary (its feature-based centroid).
// A GET answers from the model's centroids in memory (a whole-space map
// computed by this process made them), else 404 (notComputed); POST
// (computeSpaceNeighbours) computes them first.
func (h *modelsAPI) spaceNeighbours(c echo.Context) error {
	return h.nearest(c, c.QueryParams(), false)
}

// computeSpaceNeighbours: POST /api/models/:id/space/neighbours {"term","k"?,"variant"?,"metric"?}.
func (h *modelsAPI) computeSpaceNeighbours(c echo.Context) error {
	q, err := jsonParams(c, "term", "k", "variant", "metric")
	if err != nil {
		return err
	}
	return h.nearest(c, q, true)
}

// nearest answers the space's neighbours of q's term, computing the model's
// centroids when compute is set.
func (h *modelsAPI) nearest(c echo.Context, q url.Values, compute bool) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	variant, err := checkVariant(q.Get("variant"))
	if err != nil {
		return err
	}
	term := strings.TrimSpace(q.Get("term"))
	if term == "" {
		return app.BadInput("term", "is required")
	}
	k := 10
	if v := q.Get("k"); v != "" {
		if k, err = strconv.Atoi(v); err != nil || k < 1 || k > maxSpaceK {
			return app.BadInput("k", "must be an integer in 1..%d", maxSpaceK)
		}
	}
	metric := q.Get("metric")
	switch metric {
	case "":
		metric = app.MetricEuclidean
	case app.MetricEuclidean, app.MetricCosine:
	default:
		return app.BadInput("metric", "must be %q or %q", app.MetricEuclidean, app.MetricCosine)
	}
	cs := h.s.centroids.get(row.ID + "|" + variant)
	if cs == nil && !compute {
		return h.s.notComputed(c, "the term centroids of the model (the whole space's neighbours)", row.ID, "", q)
	}
	if cs == nil {
		ctx := c.Request().Context()
		if cs, err = h.s.termCentroids(ctx, row, m, variant); err != nil {
			return err
		}
	}
	if id, ok := m.Vocabulary().ID(term); ok {
		return c.JSON(http.StatusOK, map[string]any{"term": term, "variant": variant, "metric": metric, "neighbours": app.NearestTermsBy(metric, cs.terms, cs.vecs, cs.counts, cs.vecs[id], id, k)})
	}
	if i, ok := slices.BinarySearch(cs.oov.Terms, term); ok {
		return c.JSON(http.StatusOK, map[string]any{"term": term, "variant": variant, "metric": metric, "oov": true, "neighbours": app.NearestTermsBy(metric, cs.terms, cs.vecs, cs.counts, cs.oov.Vecs[i], -1, k)})
	}
	return &app.NotFoundError{What: "term", ID: term, Reason: fmt.Sprintf("term %q is neither in the model's vocabulary nor a tag of its corpus", term)}
}
