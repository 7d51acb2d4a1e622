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
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/eval"
)

func TestUploadCorpus(t *testing.T) {
	ts := newTestServer(t, Config{MaxUpload: 4096})
	rec := ts.upload("songs.tsv", smallTSV())
	if rec.Code != http.StatusCreated {
		t.Fatalf("status: got %d, want 201 (%s)", rec.Code, rec.Body)
	}
	got := decode[corpusJSON](t, rec)
	// 60 documents; tags counted by hand from smallTSV's three theme lists
	// (guitar is shared by two themes): 5 + 5 + 5 − 1 = 14.
	if got.Docs != 60 || got.Tags != 14 || got.Format != "tsv" || got.Name != "songs" || got.ID == "" {
		t.Errorf("got %+v, want 60 docs, 14 tags, format tsv, name songs", got)
	}

	// The name and format fields, before the file, override the defaults.
	csv := []byte("a,b,c\nb,c\nc,d,e\n")
	body, ct := multipartBody(t, [][2]string{{"name", "mine"}, {"format", "lines"}}, "x.txt", csv)
	rec = ts.do(http.MethodPost, "/api/corpora", body, ct)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status: got %d, want 201 (%s)", rec.Code, rec.Body)
	}
	if got := decode[corpusJSON](t, rec); got.Name != "mine" || got.Format != "lines" || got.Docs != 3 {
		t.Errorf("got %+v, want name mine, format lines, 3 docs", got)
	}

	list := decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", ""))
	if len(list) != 2 {
		t.Fatalf("list: got %d corpora, want 2", len(list))
	}
}

func TestUploadErrors(t *testing.T) {
	ts := newTestServer(t, Config{MaxUpload: 2048})
	tests := []struct {
		name    string
		content []byte
		status  int
		substr  string
	}{
		{"NUL byte names its line", []byte("a\tx\ty\nb\tz\tw\n\x00oops\n"), 400, "line 3"},
		{"empty", nil, 400, "empty"},
		{"single document", []byte("a\tx\ty\n"), 400, "2"},
		{"oversized", bytes.Repeat([]byte("doc\ttag\tother\n"), 400), 413, "too large"},
		{"bad JSON line", []byte("{\"id\":\"a\",\"tags\":[\"x\"]}\n{\"id\":\"b\",\"tags\":[\"y\"\n"), 400, "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, ts.upload("c.tsv", tt.content), tt.status, tt.substr)
		})
	}
	// Oversized without a Content-Length (chunked): the reader hits the limit.
	body, ct := multipartBody(t, nil, "c.tsv", bytes.Repeat([]byte("doc\ttag\tother\n"), 400))
	req := newRequest(http.MethodPost, "/api/corpora", body)
	req.Header.Set("Content-Type", ct)
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	wantError(t, rec, 413, "too large")

	wantError(t, ts.do(http.MethodPost, "/api/corpora", strings.NewReader("{}"), "application/json"), 400, "multipart")
	body, ct = multipartBody(t, [][2]string{{"name", "x"}}, "", nil)
	wantError(t, ts.do(http.MethodPost, "/api/corpora", body, ct), 400, "file")

	// Nothing was stored by any failed upload.
	if list := decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", "")); len(list) != 0 {
		t.Errorf("after failed uploads: got %d corpora, want 0", len(list))
	}
}

func TestCorpusGetDeleteTags(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	rec := ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID, "")
	if rec.Code != 200 {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}
	d := decode[corpusDetailJSON](t, rec)
	// smallTSV: document i has 3 + i%3 tags, so 20 documents each of 3, 4 and 5 tags.
	wantCard := []int{0, 0, 0, 20, 20, 20}
	if len(d.Cardinality) != len(wantCard) {
		t.Fatalf("cardinality: got %v, want %v", d.Cardinality, wantCard)
	}
	for i := range wantCard {
		if d.Cardinality[i] != wantCard[i] {
			t.Fatalf("cardinality: got %v, want %v", d.Cardinality, wantCard)
		}
	}
	for i := 1; i < len(d.TagCounts); i++ {
		if d.TagCounts[i].Count > d.TagCounts[i-1].Count {
			t.Fatalf("tag counts not descending: %v", d.TagCounts)
		}
	}
	// guitar is in two themes, so it is the most used tag.
	if d.TagCounts[0].Tag != "guitar" {
		t.Errorf("top tag: got %q, want guitar", d.TagCounts[0].Tag)
	}

	tags := decode[[]TagCount](t, ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID+"/tags?q=GU", ""))
	if len(tags) != 1 || tags[0].Tag != "guitar" {
		t.Errorf("autocomplete GU: got %v, want [guitar]", tags)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID+"/tags?limit=0", ""), 400, "limit")
	wantError(t, ts.doJSON(http.MethodGet, "/api/corpora/nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodDelete, "/api/corpora/nosuch", ""), 404, "not found")
	if rec := ts.doJSON(http.MethodDelete, "/api/corpora/"+c.ID, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("delete: got %d, want 204", rec.Code)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID, ""), 404, "not found")
}

func TestMatchTagsLarge(t *testing.T) {
	// 10,000 tags: prefix matches come first, then inner matches, limit respected.
	all := make([]TagCount, 10000)
	for i := range all {
		all[i] = TagCount{Tag: "tag" + strings.Repeat("x", i%7) + string(rune('a'+i%26)), Count: 10000 - i}
	}
	all[5000] = TagCount{Tag: "zebra", Count: 1}
	all[5001] = TagCount{Tag: "the zebra", Count: 1}
	got := matchTags(all, "zeb", 10)
	if len(got) != 2 || got[0].Tag != "zebra" || got[1].Tag != "the zebra" {
		t.Errorf("got %v, want [zebra, the zebra]", got)
	}
	if got := matchTags(all, "tag", 15); len(got) != 15 {
		t.Errorf("limit: got %d, want 15", len(got))
	}
}

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
// the model is interrupted, and restarts it.
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
	if j := decode[jobJSON](t, rec); j.State != JobCancelled {
		t.Errorf("job state: got %s, want cancelled", j.State)
	}
	wantError(t, ts.doJSON(http.MethodDelete, "/api/jobs/"+ids["job_id"], ""), 409, "already finished")
	m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+ids["model_id"], ""))
	if m.State != ModelInterrupted {
		t.Errorf("model state: got %s, want interrupted", m.State)
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
	st, err := OpenStore(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := parseCorpus(bytes.NewReader(smallTSV()), "songs", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.InsertCorpus(ctx, c, computeStats(c), mustSplit(c), false)
	if err != nil {
		t.Fatal(err)
	}
	m := &ModelRow{CorpusID: row.ID, Name: "m", Seed: 1, Params: json.RawMessage(`{"pretrain_iterations":-1,"max_time_seconds":60,"max_epochs1":1000,"patience":1000}`)}
	if err := st.InsertModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	j := &JobRow{Kind: "train", TargetID: m.ID}
	if err := st.InsertJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.State, j.Stage, j.Progress, j.Message = JobRunning, "stage1", 0.42, "epoch 3/30"
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
	if got.State != JobInterrupted {
		t.Errorf("job after restart: got %s, want interrupted", got.State)
	}
	if want := "the server stopped while this job was running, at stage stage1 (42 %); last progress: epoch 3/30"; got.Message != want {
		t.Errorf("interrupted job's message: got %q, want %q", got.Message, want)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) || ts.store.RemovedTemp != 1 {
		t.Errorf("leftover temporary file: stat %v, %d removed; want it removed at start-up", err, ts.store.RemovedTemp)
	}
	mj := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+m.ID, ""))
	if mj.State != ModelInterrupted {
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
	if m.State != ModelReady || m.Size <= 0 || len(m.Log) == 0 || m.CorpusID != corpusID {
		t.Fatalf("model: got state %s size %d log %d, want ready with a file and a log", m.State, m.Size, len(m.Log))
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

	tags := decode[[]TagCount](t, ts.doJSON(http.MethodGet, base+"/tags?q=gui", ""))
	if len(tags) == 0 || tags[0].Tag != "guitar" {
		t.Errorf("model tags: got %v, want guitar first", tags)
	}
}

func TestMapAPI(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	base := "/api/models/" + modelID + "/map"
	wantError(t, ts.doJSON(http.MethodGet, base, ""), 400, "term")
	wantError(t, ts.doJSON(http.MethodGet, base+"?term=nope-nope", ""), 404, "vocabulary")
	wantError(t, ts.doJSON(http.MethodGet, base+"?term=guitar&variant=x", ""), 400, "variant")
	wantError(t, ts.doJSON(http.MethodGet, base+"?term=guitar&corpus=nosuch", ""), 404, "nosuch")

	rec := ts.doJSON(http.MethodGet, base+"?term=guitar&variant=ce", "")
	if rec.Code == http.StatusAccepted {
		ts.waitJob(decode[map[string]string](t, rec)["job_id"])
		rec = ts.doJSON(http.MethodGet, base+"?term=guitar&variant=ce", "")
	}
	if rec.Code != 200 {
		t.Fatalf("map: got %d (%s)", rec.Code, rec.Body)
	}
	md := decode[MapData](t, rec)
	if len(md.Points) < 4 {
		t.Fatalf("map: got %d points", len(md.Points))
	}
	for _, p := range md.Points {
		if p.Term != "guitar" || p.Kind != "instance" || p.DocID == "" || !hasTag(p.Tags, "guitar") {
			t.Fatalf("map point %+v: want an instance of guitar with its document's tags", p)
		}
	}
	// Neighbours of a point: its own document's list.
	p := md.Points[0]
	q := url.Values{"term": {"guitar"}, "doc": {p.DocID}, "k": {"4"}}
	rec = ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/neighbours?"+q.Encode(), "")
	if rec.Code != 200 {
		t.Fatalf("neighbours: %d %s", rec.Code, rec.Body)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/neighbours?term=guitar", ""), 400, "required")
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/neighbours?term=guitar&doc=nosuch", ""), 404, "nosuch")

	// The map survives a restart: a new server over the same store serves it at once.
	ts2 := openTestServer(t, ts.dir, Config{})
	_ = ts2
}

// TestSSE reads the event stream of a finished and a running job over a real
// HTTP connection.
func TestSSE(t *testing.T) {
	ts := newTestServer(t, Config{})
	srv := httptest.NewServer(ts.Handler())
	defer srv.Close()
	release := make(chan struct{})
	job, err := ts.jobs.Submit("test", "x", nil, func(ctx context.Context, rep *Reporter) error {
		rep.Progress(0.5, "half", "halfway")
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		rep.Point(0.9, "stage1", "epoch 1", TrainPoint{Stage: "stage1", Epoch: 1, Loss: 0.25})
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

func TestEvaluationAPI(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	rec := ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+modelID+`"],"subset":"test","protocol":"priming","baselines":["random","lda"],"trials":2}`)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	ids := decode[map[string]string](t, rec)
	if j := ts.waitJob(ids["job_id"]); j.State != JobDone {
		t.Fatalf("evaluation job: %s %s", j.State, j.Message)
	}
	rec = ts.doJSON(http.MethodGet, "/api/evaluations/"+ids["evaluation_id"], "")
	if rec.Code != 200 {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}
	var rep map[string]any
	json.Unmarshal(rec.Body.Bytes(), &rep)
	for _, f := range []string{"corpus", "subset", "protocol", "trials", "models", "p_values"} {
		if _, ok := rep[f]; !ok {
			t.Errorf("report lacks %q", f)
		}
	}
	models := rep["models"].([]any)
	names := map[string]bool{}
	for _, m := range models {
		mm := m.(map[string]any)
		names[mm["name"].(string)] = true
		for _, f := range []string{"p_at_k", "p_at_k_se", "map", "map_se", "pr", "pr_se", "auc", "auc_se", "queries"} {
			if _, ok := mm[f]; !ok {
				t.Errorf("model %v lacks %q", mm["name"], f)
			}
		}
		if n := len(mm["p_at_k"].([]any)); n != 10 {
			t.Errorf("p_at_k: got %d values, want 10", n)
		}
		if n := len(mm["pr"].([]any)); n != 11 {
			t.Errorf("pr: got %d values, want 11", n)
		}
	}
	for _, n := range []string{"ce", "siamese-ce", "random", "lda"} {
		if !names[n] {
			t.Errorf("report has no model %q (has %v)", n, names)
		}
	}
	list := decode[[]evalJSON](t, ts.doJSON(http.MethodGet, "/api/evaluations", ""))
	if len(list) == 0 {
		t.Error("evaluation not listed")
	}
	// The compare page renders the three charts.
	page := ts.do(http.MethodGet, "/compare/"+ids["evaluation_id"], nil, "").Body.String()
	for _, id := range []string{"chart-patk", "chart-map", "chart-auc", "chart-pr", "score-table"} {
		if !strings.Contains(page, `data-testid="`+id+`"`) {
			t.Errorf("evaluation page lacks %s", id)
		}
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
	if j := ts.waitJob(ids["job_id"]); j.State != JobDone {
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

// TestMapOverlay overlays the accompany terms of two documents on a cached map
// (placed with tsne's Transform) and checks the base points do not move.
func TestMapOverlay(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	base := "/api/models/" + modelID + "/map?term=guitar&variant=siamese-ce"
	rec := ts.doJSON(http.MethodGet, base, "")
	if rec.Code == http.StatusAccepted {
		ts.waitJob(decode[map[string]string](t, rec)["job_id"])
		rec = ts.doJSON(http.MethodGet, base, "")
	}
	md := decode[MapData](t, rec)
	if len(md.Points) < 2 {
		t.Fatalf("base map: %d points", len(md.Points))
	}
	docs := md.Points[0].DocID + "," + md.Points[1].DocID
	rec = ts.doJSON(http.MethodGet, base+"&docs="+url.QueryEscape(docs), "")
	if rec.Code != 200 {
		t.Fatalf("overlay: %d %s", rec.Code, rec.Body)
	}
	ov := decode[MapData](t, rec)
	want := len(md.Points) + len(md.Points[0].Tags) - 1 + len(md.Points[1].Tags) - 1
	if len(ov.Points) != want {
		t.Errorf("overlay: got %d points, want %d (base + the other tags of both documents)", len(ov.Points), want)
	}
	for i, p := range md.Points {
		if ov.Points[i].X != p.X || ov.Points[i].Y != p.Y || ov.Points[i].DocID != p.DocID {
			t.Fatalf("base point %d moved: %+v → %+v", i, p, ov.Points[i])
		}
	}
	for _, p := range ov.Points[len(md.Points):] {
		if p.Kind != "accompany" && p.Kind != "oov" {
			t.Errorf("overlay point kind %q, want accompany or oov", p.Kind)
		}
	}
	wantError(t, ts.doJSON(http.MethodGet, base+"&docs=nosuch", ""), 404, "nosuch")
}

// TestEvaluationSettings runs one trial of each setting of the compare form and
// checks which models the report holds and which notes say why a baseline was
// left out (the rules of taglens eval, paper §6.2.1-6.2.5).
func TestEvaluationSettings(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	// A second corpus: demo tags (all in the vocabulary) in new combinations, plus
	// documents with tags the model never saw.
	var b strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "x%02d\tguitar\trock\tdrums\n", i)
		fmt.Fprintf(&b, "y%02d\tguitar\tnever-seen-%d\trock\n", i, i%3)
	}
	other := decode[corpusJSON](t, ts.upload("other.tsv", []byte(b.String())))
	tests := []struct {
		name      string
		body      string
		want      []string // models in the report
		notWant   []string
		noteParts []string // substrings of the notes
	}{
		{"extended on train: all baselines",
			`"subset":"train","protocol":"extended","baselines":["all"]`,
			append([]string{"ce", "siamese-ce"}, baselines.Names...), nil, nil},
		{"priming on test: contextual baselines only, crbm skipped",
			`"subset":"test","protocol":"priming","baselines":["all"]`,
			[]string{"random", "lda", "plsa", "ce", "siamese-ce"}, []string{"lsa", "pca", "infotheo", "skipgram", "crbm", "ppmi-svd", "glove"},
			[]string{"infotheo skipped", "skipgram skipped", "crbm skipped: its context is the training document", "ppmi-svd skipped", "glove skipped"}},
		{"incomplete context on train, extended: crbm with its context whole",
			`"subset":"train","protocol":"extended","setting":"incomplete-context","missing":"10-30","baselines":["random","crbm"]`,
			[]string{"random", "crbm", "ce", "siamese-ce"}, nil, nil},
		{"incomplete context on train, priming: crbm skipped",
			`"subset":"train","protocol":"priming","setting":"incomplete-context","missing":"10-30","baselines":["random","crbm"]`,
			[]string{"random", "ce", "siamese-ce"}, []string{"crbm"}, []string{"cannot be made incomplete"}},
		{"cross corpora",
			`"corpus_id":"` + other.ID + `","setting":"cross-corpora","protocol":"extended","baselines":["pca","crbm"]`,
			[]string{"pca", "ce", "siamese-ce"}, []string{"crbm"}, []string{"12 documents of other", "12 left out"}},
		{"OOV within the corpus",
			`"subset":"oov","setting":"oov","baselines":["random"]`,
			OOVVariants, []string{"random", "ce"}, []string{"baselines do not handle OOV"}},
		{"real OOV in another corpus",
			`"corpus_id":"` + other.ID + `","setting":"oov"`,
			OOVVariants, nil, []string{"12 documents with OOV terms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+modelID+`"],"trials":1,`+tt.body+`}`)
			if rec.Code != http.StatusAccepted {
				t.Fatalf("create: %d %s", rec.Code, rec.Body)
			}
			ids := decode[map[string]string](t, rec)
			if j := ts.waitJob(ids["job_id"]); j.State != JobDone {
				t.Fatalf("evaluation job: %s %s", j.State, j.Message)
			}
			var rep struct {
				Models []struct {
					Name    string `json:"name"`
					Queries int    `json:"queries"`
				} `json:"models"`
				Notes []string `json:"notes"`
			}
			if err := json.Unmarshal(ts.doJSON(http.MethodGet, "/api/evaluations/"+ids["evaluation_id"], "").Body.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, m := range rep.Models {
				names[m.Name] = true
				if m.Queries == 0 {
					t.Errorf("%s: 0 queries", m.Name)
				}
			}
			for _, n := range tt.want {
				if !names[n] {
					t.Errorf("report lacks %q (has %v)", n, names)
				}
			}
			for _, n := range tt.notWant {
				if names[n] {
					t.Errorf("report has %q, want it left out", n)
				}
			}
			notes := strings.Join(rep.Notes, "\n")
			for _, p := range tt.noteParts {
				if !strings.Contains(notes, p) {
					t.Errorf("notes %q lack %q", notes, p)
				}
			}
		})
	}
	// Settings that contradict the chosen corpus or protocol are refused.
	m := `{"model_ids":["` + modelID + `"],`
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"cross-corpora"}`), 400, "another corpus")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"cross-corpora","corpus_id":"`+corpusID+`"}`), 400, "another corpus")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"corpus_id":"`+other.ID+`"}`), 400, "cross-corpora")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"oov","protocol":"extended"}`), 400, "priming protocol only")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"missing":"10-30"}`), 400, "incomplete-context")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"incomplete-context"}`), 400, "band")
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
	if _, err := src.store.db.Exec(`VACUUM INTO ?`, filepath.Join(dir, "taglens.db")); err != nil {
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
	if mj.State != ModelFailed {
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

// TestDisconnectLoggedAtDebug: a request whose client went away is logged at
// debug level, not as a server error.
func TestDisconnectLoggedAtDebug(t *testing.T) {
	var buf bytes.Buffer
	st, err := OpenStore(context.Background(), t.TempDir())
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
	e := s.Handler().(*echo.Echo)
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

// TestEvaluationSeedTrials: two models of one corpus trained with seeds 1 and 2
// share its split, and evaluated with seed_trials they are the two trials of one
// "ce" and one "siamese-ce" row.
func TestEvaluationSeedTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models")
	}
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	var ids []string
	for seed := 1; seed <= 2; seed++ {
		pj, _ := json.Marshal(map[string]any{"corpus_id": c.ID, "seed": seed, "params": fastParams})
		r := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/models", string(pj)))
		if j := ts.waitJob(r["job_id"]); j.State != JobDone {
			t.Fatalf("training: %s %s", j.State, j.Message)
		}
		ids = append(ids, r["model_id"])
	}
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+ids[0]+`"],"seed_trials":true}`), 400, "at least two models")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+ids[0]+`","`+ids[1]+`"],"seed_trials":true,"trials":3}`), 400, "number of models")
	body := `{"model_ids":["` + ids[0] + `","` + ids[1] + `"],"seed_trials":true,"baselines":["random"],"protocol":"extended"}`
	r := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/evaluations", body))
	if j := ts.waitJob(r["job_id"]); j.State != JobDone {
		t.Fatalf("evaluation: %s %s", j.State, j.Message)
	}
	rep := decode[eval.Report](t, ts.doJSON(http.MethodGet, "/api/evaluations/"+r["evaluation_id"], ""))
	var names []string
	for _, m := range rep.Models {
		names = append(names, m.Name)
		if len(m.PerTrial) != 2 {
			t.Errorf("%s: %d trials, want 2 (one per model)", m.Name, len(m.PerTrial))
		}
	}
	if got := strings.Join(names, ","); got != "random,ce,siamese-ce" || rep.Trials != 2 {
		t.Errorf("rows %s, %d trials; want random,ce,siamese-ce over 2 trials", got, rep.Trials)
	}
	// The two trials of ce use different models: their results differ.
	if ce := rep.Models[1]; ce.PerTrial[0].MAP == ce.PerTrial[1].MAP {
		t.Error("both trials of ce have the same MAP: the second model was not used")
	}
}

// TestUploadWithSplit: a split file uploaded with the corpus is stored and used
// by training; a bad one is refused with its line and nothing is stored.
func TestUploadWithSplit(t *testing.T) {
	ts := newTestServer(t, Config{})
	upload := func(split string) *httptest.ResponseRecorder {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		fw, _ := w.CreateFormFile("file", "songs.tsv")
		fw.Write(smallTSV())
		if split != "" {
			sw, _ := w.CreateFormFile("split", "split.tsv")
			sw.Write([]byte(split))
		}
		w.Close()
		return ts.do(http.MethodPost, "/api/corpora", &buf, w.FormDataContentType())
	}
	var good, bad strings.Builder
	for i := 0; i < 60; i++ {
		sub := "train"
		switch i % 5 {
		case 3:
			sub = "valid"
		case 4:
			sub = "test"
		}
		fmt.Fprintf(&good, "d%02d\t%s\n", i, sub)
		if i != 7 {
			fmt.Fprintf(&bad, "d%02d\t%s\n", i, sub)
		}
	}
	fmt.Fprintf(&bad, "d07\ttrian\n")
	wantError(t, upload(bad.String()), http.StatusBadRequest, "split file: corpus: split: line 60: unknown subset \"trian\"")
	if n := len(decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", ""))); n != 0 {
		t.Fatalf("a refused upload stored %d corpora", n)
	}
	rec := upload(good.String())
	if rec.Code != http.StatusCreated {
		t.Fatalf("upload with a split: %d %s", rec.Code, rec.Body)
	}
	id := decode[corpusJSON](t, rec).ID
	d := decode[corpusDetailJSON](t, ts.doJSON(http.MethodGet, "/api/corpora/"+id, ""))
	if d.Split.Train != 36 || d.Split.Valid != 12 || d.Split.Test != 12 {
		t.Errorf("stored split: %+v, want 36 train, 12 valid, 12 test", d.Split)
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
