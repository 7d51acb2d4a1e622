package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/testkit"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
)

// testServer is a server on a fresh data directory.
type testServer struct {
	*Server
	t   *testing.T
	dir string
}

func newTestServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	dir := t.TempDir()
	return openTestServer(t, dir, cfg)
}

func openTestServer(t *testing.T, dir string, cfg Config) *testServer {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return openTestServerLog(t, dir, cfg, log)
}

// openTestServerLog is openTestServer logging to log.
func openTestServerLog(t *testing.T, dir string, cfg Config, log *slog.Logger) *testServer {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TrainSlots == 0 {
		cfg.TrainSlots = 1
	}
	s, err := New(cfg, Deps{Store: st}, log)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, t: t, dir: dir}
	t.Cleanup(ts.close)
	return ts
}

// close shuts the server down and closes its store, releasing the data
// folder for another server (it may be called again).
func (ts *testServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ts.Shutdown(ctx)
	ts.store.Close()
}

// testHost is the Host header of the test requests: the default listen address.
const testHost = "127.0.0.1:8080"

// newRequest is httptest.NewRequest addressed to testHost (httptest's default,
// example.com, is not a host the server answers to).
func newRequest(method, path string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, path, body)
	req.Host = testHost
	return req
}

// do sends a request to the handler and returns the recorder.
func (ts *testServer) do(method, path string, body io.Reader, contentType string) *httptest.ResponseRecorder {
	ts.t.Helper()
	req := newRequest(method, path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	ts.handler().ServeHTTP(rec, req)
	return rec
}

// pageCSRF fetches the start page as a browser would and returns the CSRF
// cookie the server set and the token the page carries in htmx's headers.
func (ts *testServer) pageCSRF() (*http.Cookie, string) {
	ts.t.Helper()
	rec := ts.do(http.MethodGet, "/", nil, "")
	if rec.Code != http.StatusOK {
		ts.t.Fatalf("GET /: status %d", rec.Code)
	}
	var ck *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == csrfCookieName {
			ck = c
		}
	}
	if ck == nil {
		ts.t.Fatalf("GET / set no %s cookie", csrfCookieName)
	}
	m := regexp.MustCompile(`hx-headers="([^"]*)"`).FindStringSubmatch(rec.Body.String())
	if m == nil {
		ts.t.Fatal("the start page has no hx-headers")
	}
	var hdr map[string]string
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &hdr); err != nil || hdr["X-CSRF-Token"] == "" {
		ts.t.Fatalf("hx-headers %q: %v, want an X-CSRF-Token", m[1], err)
	}
	return &http.Cookie{Name: ck.Name, Value: ck.Value}, hdr["X-CSRF-Token"]
}

// postForm sends a form as a browser without JavaScript does from one of the
// pages: same-origin, with the CSRF cookie and the csrf_token field.
func (ts *testServer) postForm(path string, form url.Values) *httptest.ResponseRecorder {
	ts.t.Helper()
	ck, tok := ts.pageCSRF()
	f := url.Values{"csrf_token": {tok}}
	for k, v := range form {
		f[k] = v
	}
	req := newRequest(http.MethodPost, path, strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+testHost)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(ck)
	return httptestRecorder(ts, req)
}

func (ts *testServer) doJSON(method, path, body string) *httptest.ResponseRecorder {
	ts.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	return ts.do(method, path, r, "application/json")
}

// multipartBody builds a multipart form with the given fields (in order) and a file.
func multipartBody(t *testing.T, fields [][2]string, filename string, content []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		w.WriteField(f[0], f[1])
	}
	if filename != "" {
		fw, err := w.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

func (ts *testServer) upload(name string, content []byte) *httptest.ResponseRecorder {
	ts.t.Helper()
	body, ct := multipartBody(ts.t, nil, name, content)
	return ts.do(http.MethodPost, "/api/corpora", body, ct)
}

func decode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decoding %q: %v", rec.Body.String(), err)
	}
	return v
}

// wantError checks an API error response: status and {"error": "...substring..."}.
func wantError(t *testing.T, rec *httptest.ResponseRecorder, status int, substr string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status: got %d, want %d (body %s)", rec.Code, status, rec.Body.String())
	}
	e := decode[map[string]string](t, rec)
	if !strings.Contains(e["error"], substr) {
		t.Errorf("error: got %q, want it to contain %q", e["error"], substr)
	}
}

// smallTSV is a hand-written corpus: 3 themes, 60 documents.
func smallTSV() []byte { return testkit.SmallTSV() }

// trained is a model trained once on the demo corpus and shared by the tests
// that need one (training takes seconds).
var trained struct {
	once     sync.Once
	dir      string
	corpusID string
	modelID  string
	err      error
}

// fastParams train a tiny model in a few seconds.
var fastParams = trainParams{Config: ce.Config{Hidden: []int{24, 10}, MaxEpochs1: 3, MaxEpochs2: 2, Patience: 1,
	EpochExamples: 4000, PretrainIterations: -1, Alpha: 0.1, Lambda: 2, Topics: 8}}

// trainedServer returns a server over a copy-free shared data directory holding
// the demo corpus and a trained model. Tests using it must not delete them.
func trainedServer(t *testing.T) (*testServer, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("trains a model; skipped in -short mode")
	}
	trained.once.Do(func() {
		dir, err := os.MkdirTemp("", "taglens-server-test-")
		if err != nil {
			trained.err = err
			return
		}
		trained.dir = dir
		st, err := store.Open(context.Background(), dir)
		if err != nil {
			trained.err = err
			return
		}
		defer st.Close()
		s, err := New(Config{TrainSlots: 1}, Deps{Store: st}, slog.New(slog.DiscardHandler))
		if err != nil {
			trained.err = err
			return
		}
		defer s.Shutdown(context.Background())
		c, _ := corpus.Demo(corpus.DemoSeed)
		row, err := st.InsertCorpus(context.Background(), c, store.StatsOf(c), corpus.DemoSplit(c), true)
		if err != nil {
			trained.err = err
			return
		}
		pj, _ := json.Marshal(fastParams)
		m := &store.ModelRow{CorpusID: row.ID, Name: "test model", Seed: 1, Params: pj}
		if err := st.InsertModel(context.Background(), m); err != nil {
			trained.err = err
			return
		}
		job, err := s.startTraining(m)
		if err != nil {
			trained.err = err
			return
		}
		j, err := s.jobs.Wait(context.Background(), job.ID)
		if err != nil {
			trained.err = err
			return
		}
		if j.State != store.JobDone {
			trained.err = fmt.Errorf("training job %s: %s", j.State, j.Message)
			return
		}
		trained.corpusID, trained.modelID = row.ID, m.ID
	})
	if trained.err != nil {
		t.Fatal(trained.err)
	}
	return openTestServer(t, trained.dir, Config{}), trained.corpusID, trained.modelID
}

func TestMain(m *testing.M) {
	code := m.Run()
	if trained.dir != "" {
		os.RemoveAll(trained.dir)
	}
	os.Exit(code)
}

// waitJob waits for a job to finish through the manager.
func (ts *testServer) waitJob(id string) *store.JobRow {
	ts.t.Helper()
	// Generous: a comparison of every baseline under -race on a busy 2-core
	// machine has taken over 2 minutes; a job that never ends still fails.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	j, err := ts.jobs.Wait(ctx, id)
	if err != nil {
		ts.t.Fatal(err)
	}
	return j
}

func mustSplit(c *corpus.Corpus) corpus.Split { return corpus.RandomSplit(c, nil, 0, 1) }

func httptestRecorder(ts *testServer, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	ts.handler().ServeHTTP(rec, req)
	return rec
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
