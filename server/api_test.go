package server

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

func TestCreateModelErrors(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	tests := []struct {
		name, body string
		status     int
		substr     string
	}{
		{"bad JSON", `{"corpus_id":`, 400, "bad JSON"},
		{"unknown field", `{"corpus_id":"` + c.ID + `","epochs":3}`, 400, "unknown field"},
		{"no corpus", `{}`, 400, "corpus_id"},
		{"unknown corpus", `{"corpus_id":"nosuch"}`, 404, "nosuch"},
		{"bad params", `{"corpus_id":"` + c.ID + `","params":{"hidden":[0]}}`, 400, "hidden"},
		{"negative lr", `{"corpus_id":"` + c.ID + `","params":{"learning_rate":-1}}`, 400, "learning_rate"},
		{"bad early_stop", `{"corpus_id":"` + c.ID + `","params":{"early_stop":"loss"}}`, 400, "early_stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, ts.doJSON(http.MethodPost, "/api/models", tt.body), tt.status, tt.substr)
		})
	}
	for _, p := range []string{"/api/models/nosuch", "/api/models/nosuch/file"} {
		wantError(t, ts.doJSON(http.MethodGet, p, ""), 404, "nosuch")
	}
	wantError(t, ts.doJSON(http.MethodDelete, "/api/models/nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodPost, "/api/models/nosuch/prime", `{"tags":["a"]}`), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodPost, "/api/models/nosuch/embed", `{"tags":["a"]}`), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/nosuch/map?term=a", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodGet, "/api/jobs/nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodDelete, "/api/jobs/nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodGet, "/api/jobs/nosuch/events", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodGet, "/api/evaluations/nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":[]}`), 400, "model_ids")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["nosuch"]}`), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["x"],"protocol":"nope"}`), 400, "protocol")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["x"],"baselines":["magic"]}`), 400, "magic")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `not json`), 400, "bad JSON")
}

// TestTrainCancelRestart starts a training, cancels it through the API, checks
// the model is cancelled (not interrupted, which is for a server's stop), and
// restarts it.
func TestTrainCancelRestart(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	rec := ts.doJSON(http.MethodPost, "/api/models", `{"corpus_id":"`+c.ID+`","seed":3,"params":{"max_time_seconds":60,"max_epochs1":1000,"patience":1000,"pretrain_iterations":-1}}`)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: got %d, want 202 (%s)", rec.Code, rec.Body)
	}
	ids := decode[map[string]string](t, rec)
	// A model in training cannot be deleted.
	wantError(t, ts.doJSON(http.MethodDelete, "/api/models/"+ids["model_id"], ""), 409, "training")
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+ids["model_id"]+"/file", ""), 409, "no file")
	rec = ts.doJSON(http.MethodDelete, "/api/jobs/"+ids["job_id"], "")
	if rec.Code != 200 {
		t.Fatalf("cancel: got %d (%s)", rec.Code, rec.Body)
	}
	if j := decode[jobJSON](t, rec); j.State != store.JobCancelled {
		t.Errorf("job state: got %s, want cancelled", j.State)
	}
	wantError(t, ts.doJSON(http.MethodDelete, "/api/jobs/"+ids["job_id"], ""), 409, "already finished")
	m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+ids["model_id"], ""))
	if m.State != store.ModelCancelled {
		t.Errorf("model state: got %s, want cancelled", m.State)
	}
	rec = ts.doJSON(http.MethodPost, "/api/models/"+ids["model_id"]+"/restart", "")
	if rec.Code != http.StatusAccepted {
		t.Fatalf("restart: got %d (%s)", rec.Code, rec.Body)
	}
	ids2 := decode[map[string]string](t, rec)
	if ids2["job_id"] == ids["job_id"] {
		t.Error("restart reused the old job")
	}
	ts.doJSON(http.MethodDelete, "/api/jobs/"+ids2["job_id"], "")
}

// TestInterruptedAfterRestart simulates a process that died while training: the
// next server marks the job and the model interrupted, and restart works.
func TestInterruptedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := app.ImportCorpus(bytes.NewReader(smallTSV()), "songs", "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.InsertCorpus(ctx, c, store.StatsOf(c), mustSplit(c), false)
	if err != nil {
		t.Fatal(err)
	}
	m := &store.ModelRow{CorpusID: row.ID, Name: "m", Seed: 1, Params: json.RawMessage(`{"pretrain_iterations":-1,"max_time_seconds":60,"max_epochs1":1000,"patience":1000}`)}
	if err := st.InsertModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	j := &store.JobRow{Kind: "train", TargetID: m.ID}
	if err := st.InsertJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.State, j.Stage, j.Progress, j.Message = store.JobRunning, "stage1", 0.42, "epoch 3/30"
	if err := st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	st.SetModelJob(ctx, m.ID, j.ID)
	st.Close()
	// A model file being written when the process died.
	leftover := filepath.Join(dir, "models", ".tmp-123456")
	if err := os.WriteFile(leftover, []byte("half a model"), 0o644); err != nil {
		t.Fatal(err)
	}

	ts := openTestServer(t, dir, Config{})
	got := decode[jobJSON](t, ts.doJSON(http.MethodGet, "/api/jobs/"+j.ID, ""))
	if got.State != store.JobInterrupted {
		t.Errorf("job after restart: got %s, want interrupted", got.State)
	}
	if want := "the server stopped while this job was running, at stage stage1 (42 %); last progress: epoch 3/30"; got.Message != want {
		t.Errorf("interrupted job's message: got %q, want %q", got.Message, want)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) || ts.store.RemovedTemp != 1 {
		t.Errorf("leftover temporary file: stat %v, %d removed; want it removed at start-up", err, ts.store.RemovedTemp)
	}
	mj := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+m.ID, ""))
	if mj.State != store.ModelInterrupted {
		t.Errorf("model after restart: got %s, want interrupted", mj.State)
	}
	// The model page offers the restart button.
	rec := ts.do(http.MethodGet, "/models/"+m.ID, nil, "")
	if !strings.Contains(rec.Body.String(), `data-testid="restart-model"`) {
		t.Error("model page of an interrupted model has no restart button")
	}
	rec = ts.doJSON(http.MethodPost, "/api/models/"+m.ID+"/restart", "")
	if rec.Code != http.StatusAccepted {
		t.Fatalf("restart: got %d (%s)", rec.Code, rec.Body)
	}
	wantError(t, ts.doJSON(http.MethodPost, "/api/models/"+m.ID+"/restart", ""), 409, "training")
	ts.doJSON(http.MethodDelete, "/api/jobs/"+decode[map[string]string](t, rec)["job_id"], "")
}

func TestTrainedModelAPI(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	base := "/api/models/" + modelID

	m := decode[modelJSON](t, ts.doJSON(http.MethodGet, base, ""))
	if m.State != store.ModelReady || m.Size <= 0 || len(m.Log) == 0 || m.CorpusID != corpusID {
		t.Fatalf("model: got state %s size %d log %d, want ready with a file and a log", m.State, m.Size, len(m.Log))
	}
	for _, p := range m.Log {
		if p.ValidMAP == nil || p.ValidP2 == nil {
			t.Errorf("training curve point %+v: want its validation extended MAP and P@2", p)
		}
	}
	rec := ts.doJSON(http.MethodGet, base+"/file", "")
	if rec.Code != 200 || int64(rec.Body.Len()) != m.Size {
		t.Errorf("file: got %d with %d bytes, want 200 with %d", rec.Code, rec.Body.Len(), m.Size)
	}

	rec = ts.doJSON(http.MethodPost, base+"/prime", `{"tags":["guitar","acoustic","not-a-tag"],"k":5,"variant":"ce"}`)
	if rec.Code != 200 {
		t.Fatalf("prime: %d %s", rec.Code, rec.Body)
	}
	var pr struct {
		OOV      []string `json:"oov"`
		Extended []struct {
			Term     string  `json:"term"`
			Distance float64 `json:"distance"`
			InDoc    bool    `json:"in_doc"`
		} `json:"extended"`
		PerTerm map[string][]struct {
			Term     string  `json:"term"`
			Distance float64 `json:"distance"`
		} `json:"per_term"`
	}
	json.Unmarshal(rec.Body.Bytes(), &pr)
	if len(pr.OOV) != 1 || pr.OOV[0] != "not-a-tag" || len(pr.Extended) != 5 || len(pr.PerTerm["guitar"]) != 5 || len(pr.PerTerm["not-a-tag"]) != 5 {
		t.Errorf("prime: got oov %v, %d extended, per-term %d/%d, want [not-a-tag], 5, 5/5", pr.OOV, len(pr.Extended), len(pr.PerTerm["guitar"]), len(pr.PerTerm["not-a-tag"]))
	}
	for i := 1; i < len(pr.Extended); i++ {
		if pr.Extended[i].Distance < pr.Extended[i-1].Distance {
			t.Errorf("extended list not sorted by distance: %v", pr.Extended)
		}
	}
	wantError(t, ts.doJSON(http.MethodPost, base+"/prime", `{"tags":["guitar"],"variant":"x"}`), 400, "variant")
	wantError(t, ts.doJSON(http.MethodPost, base+"/prime", `{"tags":[]}`), 400, "tags")
	wantError(t, ts.doJSON(http.MethodPost, base+"/prime", `{"tags":["nope1","nope2"]}`), 422, "vocabulary")
	wantError(t, ts.doJSON(http.MethodPost, base+"/prime", `{"tags":["guitar"],"k":-3}`), 400, "k must")
	wantError(t, ts.doJSON(http.MethodPost, base+"/prime", `{"tags":"guitar"}`), 400, "bad JSON")

	rec = ts.doJSON(http.MethodPost, base+"/embed", `{"tags":["guitar","acoustic","zzz"]}`)
	if rec.Code != 200 {
		t.Fatalf("embed: %d %s", rec.Code, rec.Body)
	}
	var em struct {
		Vectors map[string][]float64 `json:"vectors"`
		OOV     []string             `json:"oov"`
	}
	json.Unmarshal(rec.Body.Bytes(), &em)
	// fastParams.Hidden ends in 10: the CE dimension.
	if len(em.Vectors) != 3 || len(em.Vectors["guitar"]) != 10 || len(em.OOV) != 1 {
		t.Errorf("embed: got %d vectors (guitar dim %d), oov %v; want 3, 10, [zzz]", len(em.Vectors), len(em.Vectors["guitar"]), em.OOV)
	}
	wantError(t, ts.doJSON(http.MethodPost, base+"/embed", `{"tags":[" "]}`), 400, "tags")

	tags := decode[[]store.TagCount](t, ts.doJSON(http.MethodGet, base+"/tags?q=gui", ""))
	if len(tags) == 0 || tags[0].Tag != "guitar" {
		t.Errorf("model tags: got %v, want guitar first", tags)
	}
}

// TestSSE reads the event stream of a finished and a running job over a real
// HTTP connection.
func TestSSE(t *testing.T) {
	ts := newTestServer(t, Config{})
	srv := httptest.NewServer(ts.handler())
	defer srv.Close()
	release := make(chan struct{})
	job, err := ts.jobs.Submit("test", "x", nil, func(ctx context.Context, rep *jobs.Reporter) error {
		rep.Progress(0.5, "half", "halfway")
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		rep.Point(0.9, "stage1", "epoch 1", store.TrainPoint{Stage: "stage1", Epoch: 1, Loss: 0.25})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/api/jobs/" + job.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type: got %q", ct)
	}
	go func() { time.Sleep(200 * time.Millisecond); close(release) }()
	sc := bufio.NewScanner(resp.Body)
	var events []string
	var sawPoint, sawEnd bool
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "event: ") {
			events = append(events, strings.TrimPrefix(line, "event: "))
		}
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"point":{"stage":"stage1","epoch":1,"loss":0.25}`) {
			sawPoint = true
		}
		if strings.HasPrefix(line, "data: ") && len(events) > 0 && events[len(events)-1] == "end" {
			sawEnd = strings.Contains(line, `"state":"done"`)
		}
	}
	if !sawPoint || !sawEnd {
		t.Errorf("events %v: saw point %v, saw end with done %v; want both", events, sawPoint, sawEnd)
	}
}

func TestDeleteModel(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	pj, _ := json.Marshal(map[string]any{"corpus_id": c.ID, "params": fastParams})
	ids := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/models", string(pj)))
	if j := ts.waitJob(ids["job_id"]); j.State != store.JobDone {
		t.Fatalf("training: %s %s", j.State, j.Message)
	}
	wantError(t, ts.doJSON(http.MethodDelete, "/api/corpora/"+c.ID, ""), 409, "used by model")
	m, _ := ts.store.Model(context.Background(), ids["model_id"])
	path := filepath.Join(ts.dir, m.Path)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("model file: %v", err)
	}
	if rec := ts.doJSON(http.MethodDelete, "/api/models/"+ids["model_id"], ""); rec.Code != 204 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("model file still there after delete: %v", err)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+ids["model_id"], ""), 404, "not found")
}

// TestDamagedModelFile truncates a trained model's file: prime, the map and the
// download answer 409 with the reason, the model is marked failed with that
// reason (shown on its page), and the damaged bytes are never served.
func TestDamagedModelFile(t *testing.T) {
	src, _, modelID := trainedServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := src.store.DB().Exec(`VACUUM INTO ?`, filepath.Join(dir, "taglens.db")); err != nil {
		t.Fatal(err)
	}
	row, err := src.store.Model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src.dir, row.Path))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, row.Path), b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	ts := openTestServer(t, dir, Config{})
	rec := ts.doJSON(http.MethodPost, "/api/models/"+modelID+"/prime", `{"tags":["guitar"]}`)
	wantError(t, rec, http.StatusConflict, "cannot be read")
	mj := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+modelID, ""))
	if mj.State != store.ModelFailed {
		t.Errorf("state after a damaged file: got %s, want failed", mj.State)
	}
	rec = ts.do(http.MethodGet, "/api/models/"+modelID+"/file", nil, "")
	if rec.Code != http.StatusConflict || rec.Body.Len() >= len(b)/2 {
		t.Errorf("download of a damaged model: got %d with %d bytes, want 409 and no model bytes", rec.Code, rec.Body.Len())
	}
	page := ts.do(http.MethodGet, "/models/"+modelID, nil, "").Body.String()
	if !strings.Contains(page, `data-testid="model-error"`) || !strings.Contains(page, "cannot be read") {
		t.Error("the model page does not say why the model failed")
	}
}

// TestDeletedModelFile: a model whose file is deleted after it was loaded
// (so the cache still holds it) is reported failed with the reason by its
// API entry, its download and prime answer 409 naming it. Before, the
// model stayed "ready", priming went on from the cache, and the download
// answered 404 {"error":"Not Found"}.
func TestDeletedModelFile(t *testing.T) {
	src, _, modelID := trainedServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := src.store.DB().Exec(`VACUUM INTO ?`, filepath.Join(dir, "taglens.db")); err != nil {
		t.Fatal(err)
	}
	row, err := src.store.Model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src.dir, row.Path))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, row.Path), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := openTestServer(t, dir, Config{})
	if rec := ts.doJSON(http.MethodPost, "/api/models/"+modelID+"/prime", `{"tags":["guitar"]}`); rec.Code != http.StatusOK {
		t.Fatalf("prime: %d %s", rec.Code, rec.Body.String())
	}
	if err := os.Remove(filepath.Join(dir, row.Path)); err != nil {
		t.Fatal(err)
	}
	mj := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+modelID, ""))
	if mj.State != store.ModelFailed {
		t.Errorf("state after its file was deleted: %s, want failed", mj.State)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/file", ""), http.StatusConflict, "no such file")
	wantError(t, ts.doJSON(http.MethodPost, "/api/models/"+modelID+"/prime", `{"tags":["guitar"]}`), http.StatusConflict, "failed")
	got, err := ts.store.Model(context.Background(), modelID)
	if err != nil || got.State != store.ModelFailed || !strings.Contains(got.Error, "the model file cannot be read") {
		t.Errorf("stored: %+v, %v: want failed with the reason", got, err)
	}
}

// TestOrphanModelFileRemoved: a model file that no model names (a training
// killed between the file's rename and the write recording it) is removed
// when the server starts; the files models name are kept.
func TestOrphanModelFileRemoved(t *testing.T) {
	src, _, modelID := trainedServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := src.store.DB().Exec(`VACUUM INTO ?`, filepath.Join(dir, "taglens.db")); err != nil {
		t.Fatal(err)
	}
	row, err := src.store.Model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src.dir, row.Path))
	if err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, store.ModelPath("0123456789ab"))
	for _, p := range []string{filepath.Join(dir, row.Path), stray} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := openTestServer(t, dir, Config{})
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("the model file no model names is still there (%v)", err)
	}
	if rec := ts.doJSON(http.MethodPost, "/api/models/"+modelID+"/prime", `{"tags":["guitar"]}`); rec.Code != http.StatusOK {
		t.Errorf("the model's own file: prime %d %s", rec.Code, rec.Body.String())
	}
}

// TestDisconnectLoggedAtDebug: a request whose client went away is logged at
// debug level, not as a server error.
func TestDisconnectLoggedAtDebug(t *testing.T) {
	var buf bytes.Buffer
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := New(Config{TrainSlots: 1}, Deps{Store: st}, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := newRequest(http.MethodGet, "/api/corpora", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	e := s.handler().(*echo.Echo)
	s.errorHandler(fmt.Errorf("reading: %w", context.Canceled), e.NewContext(req, rec))
	if strings.Contains(buf.String(), "level=ERROR") {
		t.Errorf("client disconnect logged as an error:\n%s", buf.String())
	}
	// A real failure is still logged at ERROR.
	s.errorHandler(errors.New("disk full"), e.NewContext(newRequest(http.MethodGet, "/api/corpora", nil), httptest.NewRecorder()))
	if !strings.Contains(buf.String(), "level=ERROR") {
		t.Error("a server failure was not logged at ERROR")
	}
}

// TestProjectorDownload: the projector zip holds tensors.tsv and metadata.tsv
// with one line per instance (plus metadata's header), vectors of the CE width.
func TestProjectorDownload(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	rec := ts.do(http.MethodGet, "/api/models/"+modelID+"/projector?variant=ce", nil, "")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/zip" {
		t.Fatalf("projector: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		files[f.Name] = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	tens, meta := files["tensors.tsv"], files["metadata.tsv"]
	if len(tens) < 100 || len(meta) != len(tens)+1 || meta[0] != "tag\tdoc_id\tin_doc_tags\tkind" {
		t.Fatalf("%d tensor lines, %d metadata lines (header %q)", len(tens), len(meta), meta[0])
	}
	if n := len(strings.Split(tens[0], "\t")); n != fastParams.Hidden[len(fastParams.Hidden)-1] {
		t.Errorf("vectors of %d values, want the CE width %d", n, fastParams.Hidden[len(fastParams.Hidden)-1])
	}
	wantError(t, ts.do(http.MethodGet, "/api/models/"+modelID+"/projector?variant=lsa", nil, ""), 400, "variant")
}
