package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// The instance map of a model: every (training document, vocabulary term)
// instance, its CE in the document's context placed by t-SNE's Transform
// into the whole-space map of the same t-SNE settings (app.InstanceSpace),
// served as binary columns (instbin.go) for the explorer's WebGL layer.

// Bounds of the instance map.
const (
	maxInstancePoints = 1000000 // beyond: every k-th training document (app.InstanceSpace.MaxPoints)
	instanceIters     = 100     // Transform's iterations for each instance (docs/quality-notes.md, D50)
	maxInstanceDocs   = 500     // documents one instanceDocs request lists
)

// instanceKey is the map-cache key of an instance map (spaceKey's layout).
func instanceKey(variant, corpusID string, ts tsneSettings) string {
	return mapKey(variant, "\ninstances "+ts.String(), []string{corpusID})
}

// instanceParams reads an instance map's parameters: the variant and the
// t-SNE controls of the whole-space map it is placed in (parseTSNE).
func instanceParams(q map[string][]string) (string, tsneSettings, error) {
	variant, err := checkVariant(first(q["variant"]))
	if err != nil {
		return "", tsneSettings{}, err
	}
	ts, err := parseTSNE(q)
	return variant, ts, err
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// instanceMap: GET /api/models/:id/instances[?variant=][&perplexity=P][&iters=N][&seed=S]
// — the instance map in its binary form (application/octet-stream, instbin.go)
// when computed, else 404 with its state (notComputed); POST computes it
// (computeInstanceMap).
func (h *modelsAPI) instanceMap(c echo.Context) error {
	row, _, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	variant, ts, err := instanceParams(q)
	if err != nil {
		return err
	}
	key := instanceKey(variant, row.CorpusID, ts)
	if e := h.s.loadBinMap(c.Request().Context(), row.ID, key); e != nil {
		return serveMap(c, e)
	}
	return h.s.notComputed(c, "the map of every instance", row.ID, key, q)
}

// computeInstanceMap: POST /api/models/:id/instances {"variant"?,"perplexity"?,
// "iters"?,"seed"?} — 200 with the instance map when it is computed, else 202
// with the background job computing it.
func (h *modelsAPI) computeInstanceMap(c echo.Context) error {
	q, err := jsonParams(c, "variant", "perplexity", "iters", "seed")
	if err != nil {
		return err
	}
	row, _, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	variant, ts, err := instanceParams(q)
	if err != nil {
		return err
	}
	if e := h.s.loadBinMap(c.Request().Context(), row.ID, instanceKey(variant, row.CorpusID, ts)); e != nil {
		return serveMap(c, e)
	}
	job, err := h.s.instanceJob(row, variant, ts)
	if err != nil {
		return err
	}
	return accepted(c, job)
}

// loadBinMap is loadMap for a binary map: from memory, else from the store
// once; nil when neither has it.
func (s *Server) loadBinMap(ctx context.Context, modelID, key string) *mapEntry {
	return s.loadStored(ctx, modelID, key, newBinEntry)
}

// instanceJob starts (or joins) the job computing an instance map, in the
// interactive lane with the other maps.
func (s *Server) instanceJob(row *store.ModelRow, variant string, ts tsneSettings) (*store.JobRow, error) {
	modelID := row.ID
	return s.mapJobFor(modelID, instanceKey(variant, row.CorpusID, ts), "instance-map",
		map[string]any{"variant": variant, "tsne": ts.String()},
		func(ctx context.Context, rep *jobs.Reporter) error {
			return s.computeInstances(ctx, rep, modelID, variant, ts)
		})
}

// computeInstances computes and stores an instance map: the whole-space
// map's t-SNE embedding (from memory, else computed again, seeded: the same
// map, stored too), then the instances placed in it.
func (s *Server) computeInstances(ctx context.Context, rep *jobs.Reporter, modelID, variant string, ts tsneSettings) error {
	if err := ctx.Err(); err != nil {
		return err // cancelled while queued
	}
	row, m, err := s.model(ctx, modelID)
	if err != nil {
		return err
	}
	var sm *app.SpaceMap
	if e := s.maps.get(modelID + "|" + spaceKey(variant, projTSNE, row.CorpusID, ts)); e != nil && e.emb != nil {
		sm = &app.SpaceMap{Emb: e.emb, Perplexity: app.Round4(e.emb.Perplexity)}
	} else {
		scaled := func(f float64, stage, msg string) { rep.Progress(0.3*f, stage, "the whole-space map: "+msg) }
		if sm, err = s.spaceEmbedding(ctx, scaled, modelID, variant, projTSNE, ts); err != nil {
			return err
		}
	}
	cs, err := s.termCentroids(ctx, row, m, variant)
	if err != nil {
		return err
	}
	docs, err := s.trainingDocs(ctx, row, m)
	if err != nil {
		return err
	}
	is := app.InstanceSpace{Model: m, Variant: ce.Variant(variant), Emb: sm.Emb, Seed: ts.Seed, Iterations: instanceIters,
		MaxPoints: maxInstancePoints, Progress: func(f float64, stage, msg string) { rep.Progress(0.3+0.69*f, stage, msg) }}
	tags := make([][]string, len(docs))
	for i, d := range docs {
		tags[i] = d.Tags
	}
	out, err := is.Compute(ctx, tags)
	if err != nil {
		return err
	}
	hdr := instanceHeader{Variant: variant, Perplexity: sm.Perplexity, Iterations: ts.Iterations, Seed: ts.Seed,
		Stride: out.Stride, Documents: len(docs), Topics: app.NumTopics(m), Terms: cs.terms, TermDocs: cs.counts}
	b, err := encodeInstances(hdr, out)
	if err != nil {
		return err
	}
	key := instanceKey(variant, row.CorpusID, ts)
	if err := s.store.PutMap(context.WithoutCancel(ctx), modelID, key, b); err != nil {
		return err
	}
	s.maps.put(modelID+"|"+key, newBinEntry(b))
	rep.Progress(1, "done", fmt.Sprintf("%d instances of %d documents", len(out.X), len(docs)))
	return nil
}

// trainDocsCache keeps the training documents of the last few models
// (trainingDocs), so that listing a selection's documents does not read the
// corpus again each time.
type trainDocsCache struct {
	mu   sync.Mutex
	ids  []string
	docs [][]instanceDoc
}

const trainDocsKept = 4

// cachedTrainingDocs is trainingDocs kept in the server's trainDocsCache.
func (s *Server) cachedTrainingDocs(ctx context.Context, row *store.ModelRow, m *ce.Model) ([]instanceDoc, error) {
	c := &s.trainDocs
	c.mu.Lock()
	if i := slices.Index(c.ids, row.ID); i >= 0 {
		d := c.docs[i]
		c.mu.Unlock()
		return d, nil
	}
	c.mu.Unlock()
	docs, err := s.trainingDocs(ctx, row, m)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ids) >= trainDocsKept {
		c.ids, c.docs = c.ids[1:], c.docs[1:]
	}
	c.ids, c.docs = append(c.ids, row.ID), append(c.docs, docs)
	return docs, nil
}

// trainingDocs returns the training documents of a model (the split it was
// trained with), in the split's order: the documents the instance map's
// "doc" column indexes.
func (s *Server) trainingDocs(ctx context.Context, row *store.ModelRow, m *ce.Model) ([]instanceDoc, error) {
	crow, err := s.store.CorpusWithSplit(ctx, row.CorpusID)
	if err != nil {
		return nil, notFound(err, "corpus", row.CorpusID)
	}
	c, err := s.store.Documents(ctx, row.CorpusID)
	if err != nil {
		return nil, notFound(err, "corpus", row.CorpusID)
	}
	split := trainSplit(crow, c, m.Info().SplitSeed)
	docs := make([]instanceDoc, len(split.Train))
	for i, d := range split.Train {
		docs[i] = instanceDoc{Index: i, ID: c.Docs[d].ID, Tags: c.Docs[d].Tags}
	}
	return docs, nil
}

// instanceDoc is a training document of an instance map, as instanceDocs
// lists it.
type instanceDoc struct {
	Index int      `json:"index"` // the instance map's "doc" value
	ID    string   `json:"id"`
	Tags  []string `json:"tags"`
	Topic int      `json:"topic"` // its LDA topic (app.DocumentTopic), −1: none
}

// instanceDocs: GET /api/models/:id/instances/docs?doc=I,I… — the training
// documents of the instance map's "doc" column values I (at most
// maxInstanceDocs): {"docs":[{"index","id","tags","topic"}]}, in the order
// asked.
func (h *modelsAPI) instanceDocs(c echo.Context) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	raw := textlist.Split(c.QueryParam("doc"))
	if len(raw) == 0 {
		return app.BadInput("doc", "is required: the instance map's document indices, comma-separated")
	}
	if len(raw) > maxInstanceDocs {
		return app.BadInput("doc", "at most %d documents, got %d", maxInstanceDocs, len(raw))
	}
	docs, err := h.s.cachedTrainingDocs(c.Request().Context(), row, m)
	if err != nil {
		return err
	}
	out := make([]instanceDoc, 0, len(raw))
	for _, r := range raw {
		i, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil || i < 0 || i >= len(docs) {
			return app.BadInput("doc", "%q is not a document index in 0..%d", shown(r), len(docs)-1)
		}
		d := docs[i]
		d.Topic = app.DocumentTopic(m, d.Tags)
		out = append(out, d)
	}
	return c.JSON(http.StatusOK, map[string]any{"docs": out})
}

// instancesView renders the explorer's map of every instance of the
// selected model, placed in the whole-space map of the page's t-SNE
// controls.
func (p *pages) instancesView(c echo.Context, q url.Values, vm views.ExplorerPage, status int) error {
	vm.View = "instances"
	sq := url.Values{}
	sq.Set("variant", vm.Variant)
	tsneQuery(q, &vm, sq)
	if vm.Error == "" {
		vm.InstancesURL = "/api/models/" + vm.ModelID + "/instances?" + sq.Encode()
	}
	vm.Map = mapChart("instances")
	return render(c, status, views.ExplorerPageView(vm))
}
