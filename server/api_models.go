package server

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/projector"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/server/store"
)

type modelsAPI struct{ s *Server }

// modelJSON is the API form of a model.
type modelJSON struct {
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	CorpusID  string             `json:"corpus_id"`
	State     string             `json:"state"`
	Seed      uint64             `json:"seed"`
	Params    any                `json:"params"`
	Size      int64              `json:"size"`
	JobID     string             `json:"job_id"`
	CreatedAt string             `json:"created_at"`
	Log       []store.TrainPoint `json:"log,omitempty"`
	Info      map[string]any     `json:"info,omitempty"`
	// GroupID is the seed group of the model (the detail only; "" when none).
	GroupID string `json:"group_id,omitempty"`
}

func toModelJSON(m *store.ModelRow, detail bool) (modelJSON, error) {
	out := modelJSON{ID: m.ID, Name: m.Name, CorpusID: m.CorpusID, State: m.State, Seed: m.Seed, Params: m.Params,
		Size: m.Size, JobID: m.JobID, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339)}
	if detail {
		out.Log = m.Log
		if out.Log == nil {
			out.Log = []store.TrainPoint{}
		}
		if err := jsonUnmarshal(m.Info, &out.Info); err != nil {
			return out, fmt.Errorf("model %s: stored training record: %w", m.ID, err)
		}
	}
	return out, nil
}

// createModelReq is the body of POST /api/models.
type createModelReq struct {
	CorpusID string       `json:"corpus_id"`
	Name     string       `json:"name"`
	Seed     *uint64      `json:"seed"`
	Params   *trainParams `json:"params"`
}

// create: POST /api/models → 202 {"model_id","job_id"}.
func (h *modelsAPI) create(c echo.Context) error {
	var req createModelReq
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	m, job, err := h.s.createModel(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"model_id": m.ID, "job_id": job.ID})
}

// createModel validates a training request, stores the model row and starts its
// job: the use case behind POST /api/models and the training form, with plain
// inputs (errors of a kind of internal/app, mapped to statuses by errStatus).
func (s *Server) createModel(ctx context.Context, req createModelReq) (*store.ModelRow, *store.JobRow, error) {
	m, _, err := s.newModelRow(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	job, err := s.trainNew(m) // nothing is stored when the job is refused
	if err != nil {
		return nil, nil, err
	}
	return m, job, nil
}

// newModelRow checks a training request and returns the model row it asks
// for (not stored) and its corpus.
func (s *Server) newModelRow(ctx context.Context, req createModelReq) (*store.ModelRow, *store.CorpusRow, error) {
	if req.CorpusID == "" {
		return nil, nil, app.BadInput("corpus_id", "is required")
	}
	row, err := s.store.Corpus(ctx, req.CorpusID)
	if err != nil {
		return nil, nil, notFound(err, "corpus", req.CorpusID)
	}
	var p trainParams
	if req.Params != nil {
		p = *req.Params
	}
	if err := p.validate(); err != nil {
		return nil, nil, app.BadInput("params", "%v", err)
	}
	seed := uint64(1)
	if req.Seed != nil {
		seed = *req.Seed
	}
	name := strings.TrimSpace(req.Name)
	if len(name) > 200 {
		return nil, nil, app.BadInput("name", "is longer than 200 bytes")
	}
	if name == "" {
		name = fmt.Sprintf("%s · seed %d", row.Name, seed)
	}
	pj, err := jsonMarshal(p)
	if err != nil {
		return nil, nil, err
	}
	return &store.ModelRow{CorpusID: row.ID, Name: name, Seed: seed, Params: pj}, row, nil
}

func (h *modelsAPI) list(c echo.Context) error {
	rows, err := h.s.store.Models(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]modelJSON, 0, len(rows))
	for _, r := range rows {
		mj, err := toModelJSON(r, false)
		if err != nil {
			return err
		}
		out = append(out, mj)
	}
	return c.JSON(http.StatusOK, out)
}

func (h *modelsAPI) get(c echo.Context) error {
	id := c.Param("id")
	m, err := h.s.store.Model(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "model", id)
	}
	if m.State == store.ModelReady {
		// A ready model's file must still be there: if it was deleted, the
		// model is reported failed with the reason, not ready.
		if _, err := os.Stat(filepath.Join(h.s.store.Dir(), m.Path)); err != nil {
			h.s.models.drop(id)
			m, _, _ = h.s.brokenModel(c.Request().Context(), m, err)
		}
	}
	mj, err := toModelJSON(m, true)
	if err != nil {
		return err
	}
	if mj.GroupID, err = h.s.store.ModelGroup(c.Request().Context(), id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mj)
}

// delete: DELETE /api/models/:id → 204; 409 while it is training.
func (h *modelsAPI) delete(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	m, err := h.s.store.Model(ctx, id)
	if err != nil {
		return notFound(err, "model", id)
	}
	if err := h.s.deleteModel(ctx, m); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// file: GET /api/models/:id/file — the model's weights file.
func (h *modelsAPI) file(c echo.Context) error {
	id := c.Param("id")
	m, err := h.s.store.Model(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "model", id)
	}
	if m.State == store.ModelFailed && m.Error != "" {
		return app.Conflict("model %q is failed: %s", id, m.Error)
	}
	if m.State != store.ModelReady || m.Path == "" {
		return app.Conflict("model %q has no file yet (state %s)", id, m.State)
	}
	// Load it once (checking its length and checksum) so that a damaged file is
	// never served; the loaded model stays in the cache.
	if _, _, err := h.s.readyModel(c); err != nil {
		return err
	}
	return c.Attachment(filepath.Join(h.s.store.Dir(), m.Path), "taglens-"+id+".tlm")
}

// restart: POST /api/models/:id/restart — retrain a cancelled, interrupted or
// failed model.
func (h *modelsAPI) restart(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	m, err := h.s.store.Model(ctx, id)
	if err != nil {
		return notFound(err, "model", id)
	}
	if m.State != store.ModelInterrupted && m.State != store.ModelCancelled && m.State != store.ModelFailed {
		return app.Conflict("model %q is %s; only cancelled, interrupted or failed models restart", id, m.State)
	}
	job, err := h.s.startTraining(m)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"model_id": m.ID, "job_id": job.ID})
}

// readyModel loads a ready model or answers 404/409.
func (s *Server) readyModel(c echo.Context) (*store.ModelRow, *ce.Model, error) {
	id := c.Param("id")
	if id == "" {
		id = c.QueryParam("model")
	}
	row, m, err := s.model(c.Request().Context(), id)
	if errors.Is(err, errModelNotReady) {
		return nil, nil, app.Conflict("model %q is %s, not ready", id, row.State)
	}
	if errors.Is(err, errModelBroken) {
		return nil, nil, app.Conflict("model %q is failed: %s", id, row.Error)
	}
	if err != nil {
		return nil, nil, notFound(err, "model", id)
	}
	return row, m, nil
}

type primeReq struct {
	Tags    []string `json:"tags"`
	K       *int     `json:"k"` // nil: app.DefaultPrimeK; given, it must be in 1..app.MaxPrimeK
	Variant string   `json:"variant"`
}

// prime: POST /api/models/:id/prime {"tags", "k"?, "variant"?} → ce.PrimeResult.
func (h *modelsAPI) prime(c echo.Context) error {
	var req primeReq
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	_, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	res, err := primeWith(m, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// parseVariant returns the network v names (ce.ParseVariant: Siamese-CE when
// v is empty), or a 400 error naming the accepted names.
func parseVariant(v string) (ce.Variant, error) {
	pv, err := ce.ParseVariant(v)
	if err != nil {
		return "", app.BadInput("variant", "%v", err)
	}
	return pv, nil
}

// checkVariant is parseVariant for the handlers that keep the variant as
// text (in the keys and jobs of maps).
func checkVariant(v string) (string, error) {
	pv, err := parseVariant(v)
	return string(pv), err
}

// primeWith primes req's typed tag set with m (app.Prime; tags matched as
// ce.Model.Lookup does): 400 for a wrong variant, k or tag set, 422 naming
// the tags, the variant and suggestions when no tag is in the vocabulary.
func primeWith(m *ce.Model, req primeReq) (*ce.PrimeResult, error) {
	p := app.Priming{Variant: ce.Variant(req.Variant), Tags: req.Tags}
	if req.K != nil {
		if *req.K < 1 || *req.K > app.MaxPrimeK {
			return nil, app.BadInput("k", "must be an integer in 1..%d, got %d", app.MaxPrimeK, *req.K)
		}
		p.K = *req.K
	}
	var ie *app.InputError
	if err := p.Normalize(); errors.As(err, &ie) && ie.Field == "variant" {
		return nil, ie
	} else if err != nil {
		return nil, app.BadInput("k", "must be an integer in 1..%d", app.MaxPrimeK)
	}
	if len(p.Tags) == 0 {
		return nil, app.BadInput("tags", "give at least one tag")
	}
	if len(p.Tags) > 1000 {
		return nil, app.BadInput("tags", "at most 1000")
	}
	res, err := app.Prime(m, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}

type embedReq struct {
	Tags    []string `json:"tags"`
	Variant string   `json:"variant"`
}

// maxEmbedTags bounds the tags of one embed request: 10,000 vectors of 50
// numbers are about 10 MB of JSON (80,002 tags made a 17 MB answer).
const maxEmbedTags = 10_000

// embed: POST /api/models/:id/embed {"tags"} → {"vectors": {tag: [...]}, "oov": [...]}.
func (h *modelsAPI) embed(c echo.Context) error {
	var req embedReq
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if len(req.Tags) > maxEmbedTags {
		return app.TooLarge("tags: %d tags, at most %d in one request", len(req.Tags), maxEmbedTags)
	}
	_, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	variant, err := parseVariant(req.Variant)
	if err != nil {
		return err
	}
	tags := app.CleanTags(req.Tags)
	if len(tags) == 0 {
		return app.BadInput("tags", "give at least one tag")
	}
	vecs, oov, err := m.Embed(variant, tags)
	if err != nil {
		return app.Unplaceable(err)
	}
	if oov == nil {
		oov = []string{}
	}
	return c.JSON(http.StatusOK, map[string]any{"vectors": vecs, "oov": oov})
}

// tags: GET /api/models/:id/tags?q= — autocomplete over the model's vocabulary.
func (h *modelsAPI) tags(c echo.Context) error {
	id := c.Param("id")
	row, err := h.s.store.Model(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "model", id)
	}
	return h.s.tagMatches(c, row.CorpusID)
}

// neighbours: GET /api/models/:id/neighbours?term=T&doc=DOCID&corpus=ID[&variant=][&k=][&metric=euclidean|cosine]
// — the nearest vocabulary terms of T's instance in the context of that
// document (CE(T|doc), or the centroid for an OOV tag), by the distances of
// the points the explorer draws.
func (h *modelsAPI) neighbours(c echo.Context) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	term := strings.TrimSpace(c.QueryParam("term"))
	docID := c.QueryParam("doc")
	if term == "" || docID == "" {
		return app.BadInput("", "term and doc are required")
	}
	corpusID := c.QueryParam("corpus")
	if corpusID == "" {
		corpusID = row.CorpusID
	}
	k := 10
	if v := c.QueryParam("k"); v != "" {
		if k, err = strconv.Atoi(v); err != nil || k < 1 || k > 100 {
			return app.BadInput("k", "must be an integer in 1..100")
		}
	}
	variant, err := parseVariant(c.QueryParam("variant"))
	if err != nil {
		return err
	}
	doc, err := h.s.store.Document(c.Request().Context(), corpusID, docID)
	if err != nil {
		return notFound(err, "document", docID)
	}
	metric := c.QueryParam("metric")
	if metric != "" && metric != "euclidean" && metric != "cosine" {
		return app.BadInput("metric", "must be euclidean or cosine")
	}
	// The document's own tags, matched exactly as its map placed them; the
	// distances are those of the points the map draws (no term widths).
	list, err := m.DocumentNeighbours(variant, doc.Tags, term, k, metric == "cosine")
	if errors.Is(err, ce.ErrNotInDocument) {
		return &app.NotFoundError{What: "term", ID: term, Reason: fmt.Sprintf("term %q is not a tag of document %q", term, docID)}
	}
	if err != nil {
		return app.Unplaceable(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"term": term, "doc_id": docID, "doc_tags": doc.Tags, "neighbours": list})
}

// projector: GET /api/models/:id/projector[?variant=siamese-ce|ce][&corpus=ID] —
// a zip of the TensorFlow Embedding Projector's two files (tensors.tsv,
// metadata.tsv) with one CE instance per (document, tag) of the corpus (the
// model's own by default), as `taglens export` writes them.
func (h *modelsAPI) projector(c echo.Context) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	variant, err := parseVariant(c.QueryParam("variant"))
	if err != nil {
		return err
	}
	corpusID := c.QueryParam("corpus")
	if corpusID == "" {
		corpusID = row.CorpusID
	}
	ctx := c.Request().Context()
	docs, err := h.s.store.Documents(ctx, corpusID)
	if err != nil {
		return notFound(err, "corpus", corpusID)
	}
	// Both files are built in memory first: an error must still be able to
	// answer with a status, which a half-sent zip cannot.
	var tensors, metadata bytes.Buffer
	rows, _, err := projector.Write(ctx, m, variant, docs.Docs, &tensors, &metadata)
	if err != nil {
		return err
	}
	if rows == 0 {
		return app.Conflict("no document of corpus %q has a tag in the model's vocabulary", docs.Name)
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	// The entries carry the model's creation time (zip.Writer.Create leaves
	// it zero, which unzip shows as 1980-00-00).
	modified := row.CreatedAt
	if modified.IsZero() {
		modified = time.Now()
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"tensors.tsv", tensors.Bytes()}, {"metadata.tsv", metadata.Bytes()}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return err
		}
		if _, err := w.Write(f.b); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	name := fmt.Sprintf("taglens-%s-%s-projector.zip", row.ID, variant)
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", name))
	return c.Blob(http.StatusOK, "application/zip", zbuf.Bytes())
}
