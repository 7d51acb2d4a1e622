package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// storedRows counts the rows of the jobs and maps tables.
func (ts *testServer) storedRows() (jobs, maps int) {
	ts.t.Helper()
	ctx := context.Background()
	if err := ts.store.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs`).Scan(&jobs); err != nil {
		ts.t.Fatal(err)
	}
	if err := ts.store.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM maps`).Scan(&maps); err != nil {
		ts.t.Fatal(err)
	}
	return jobs, maps
}

// TestCrossSiteWorkRefused: the GET routes that start work (a space map, a
// term map, a context map, the space's neighbours, the explorer page whose
// script asks for a map) refuse a request from another site — marked by
// Sec-Fetch-Site, or with an Origin or Referer of another site — with 403
// before anything runs, and nothing is stored; the same requests without
// those headers (curl) or from the server's own pages still work.
func TestCrossSiteWorkRefused(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	m := "/api/models/" + modelID
	docs, err := ts.store.Documents(context.Background(), corpusID)
	if err != nil {
		t.Fatal(err)
	}
	routes := []string{
		m + "/space?iters=5000&seed=101",
		m + "/space?projection=pca&seed=102",
		m + "/map?term=rock,guitar&seed=7",
		m + "/context-map?doc=" + docs.Docs[0].ID,
		m + "/space/neighbours?term=guitar",
		"/explorer?model=" + modelID + "&term=guitar,rock",
		"/explorer?model=" + modelID + "&view=space&seed=103",
	}
	hostile := []struct {
		name string
		hdr  []string
	}{
		{"img on another site", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image", "Referer", "http://evil.example/"}},
		{"link from another site", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}},
		{"another origin of the site", []string{"Sec-Fetch-Site", "same-site", "Host", "localhost:8080", "Referer", "http://localhost:9999/"}},
		{"foreign Origin", []string{"Origin", "http://evil.example"}},
		{"foreign Referer, no Fetch metadata", []string{"Referer", "http://evil.example/page.html"}},
		{"Referer of another port", []string{"Referer", "http://127.0.0.1:9999/"}},
	}
	jobs0, maps0 := ts.storedRows()
	for _, h := range hostile {
		for _, r := range routes {
			rec := ts.send(http.MethodGet, r, "", h.hdr...)
			if rec.Code != http.StatusForbidden {
				t.Errorf("%s: GET %s: got %d, want 403 (%.200s)", h.name, r, rec.Code, rec.Body)
				continue
			}
			if strings.HasPrefix(r, "/api/") {
				wantJSONError(t, rec, http.StatusForbidden, "cross-site request refused")
			} else if b := rec.Body.String(); !strings.Contains(b, "cross-site request refused") || !strings.Contains(b, `href="`+strings.ReplaceAll(r, "&", "&amp;")+`"`) {
				t.Errorf("%s: GET %s: the refusal page does not explain it and link the page: %s", h.name, r, b)
			}
		}
	}
	if j, mp := ts.storedRows(); j != jobs0 || mp != maps0 {
		t.Errorf("after refused GETs: %d jobs and %d maps stored, want %d and %d", j, mp, jobs0, maps0)
	}
	if n := len(ts.jobs.Active()); n != 0 {
		t.Errorf("after refused GETs: %d jobs running or queued, want none", n)
	}

	// curl (no browser headers) and the server's own pages still start work.
	own := []string{"Sec-Fetch-Site", "same-origin", "Referer", "http://" + testHost + "/explorer?view=space"}
	for _, hdr := range [][]string{nil, own} {
		rec := ts.send(http.MethodGet, m+"/space?projection=pca&seed=104", "", hdr...)
		switch rec.Code {
		case http.StatusAccepted:
			if j := ts.waitJob(decode[map[string]string](t, rec)["job_id"]); j.State != JobDone {
				t.Errorf("space map job: %s %s", j.State, j.Message)
			}
		case http.StatusOK:
		default:
			t.Fatalf("space map with headers %q: got %d (%s)", hdr, rec.Code, rec.Body)
		}
		if rec := ts.send(http.MethodGet, "/explorer?model="+modelID+"&term=guitar", "", hdr...); rec.Code != http.StatusOK {
			t.Errorf("explorer with headers %q: got %d", hdr, rec.Code)
		}
	}
	// Reads that start nothing stay open to any page (the browser keeps the
	// answer from it).
	if rec := ts.send(http.MethodGet, m, "", "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusOK {
		t.Errorf("cross-site GET of a model: got %d, want 200", rec.Code)
	}
}

// TestQueueCap: with at most 3 queued jobs of a kind, a fourth waiting
// training is refused with 429 and a JSON error naming the limit, and nothing
// is stored; other kinds still queue, and the refused request succeeds once
// the queue has room.
func TestQueueCap(t *testing.T) {
	ts := newTestServer(t, Config{TrainSlots: 1, MaxQueued: 3})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	long := `{"corpus_id":"` + c.ID + `","params":{"max_time_seconds":60,"max_epochs1":1000,"patience":1000,"pretrain_iterations":-1}}`
	var jobs []string
	defer func() {
		for _, id := range jobs {
			ts.doJSON(http.MethodDelete, "/api/jobs/"+id, "")
		}
	}()
	create := func() *map[string]string {
		rec := ts.doJSON(http.MethodPost, "/api/models", long)
		if rec.Code != http.StatusAccepted {
			return nil
		}
		ids := decode[map[string]string](t, rec)
		jobs = append(jobs, ids["job_id"])
		return &ids
	}
	if create() == nil {
		t.Fatal("first training refused")
	}
	// The first takes the slot; three more wait.
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, _, err := ts.jobs.Get(context.Background(), jobs[0])
		if err != nil {
			t.Fatal(err)
		}
		if j.State == JobRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("first job still %s", j.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := range 3 {
		if create() == nil {
			t.Fatalf("queued training %d refused", i+1)
		}
	}
	jobs0, _ := ts.storedRows()
	models0 := len(decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")))
	rec := ts.doJSON(http.MethodPost, "/api/models", long)
	wantJSONError(t, rec, http.StatusTooManyRequests, "too many queued jobs", "3 train jobs are waiting", "the limit is 3")
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// The page form is refused the same way.
	if rec := ts.postForm("/train", map[string][]string{"corpus_id": {c.ID}, "max_time_seconds": {"60"}}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("train form with a full queue: got %d, want 429", rec.Code)
	}
	if j, _ := ts.storedRows(); j != jobs0 {
		t.Errorf("refused trainings stored %d jobs", j-jobs0)
	}
	if n := len(decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", ""))); n != models0 {
		t.Errorf("refused trainings stored %d models", n-models0)
	}
	// Another kind has its own queue.
	other, err := ts.jobs.Submit("other", "x", nil, func(ctx context.Context, rep *Reporter) error { return ctx.Err() })
	if err != nil {
		t.Fatalf("a job of another kind: %v", err)
	}
	jobs = append(jobs, other.ID)
	// Room again: cancel a queued training.
	if rec := ts.doJSON(http.MethodDelete, "/api/jobs/"+jobs[3], ""); rec.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body)
	}
	if create() == nil {
		t.Error("training refused after a queued one was cancelled")
	}
}
