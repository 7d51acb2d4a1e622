package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/demotest"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// storedRows counts the rows of the jobs and maps tables.
func (ts *testServer) storedRows() (jobs, maps int) {
	ts.t.Helper()
	ctx := context.Background()
	if err := ts.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs`).Scan(&jobs); err != nil {
		ts.t.Fatal(err)
	}
	if err := ts.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM maps`).Scan(&maps); err != nil {
		ts.t.Fatal(err)
	}
	return jobs, maps
}

// jsonOf is params as the JSON object a compute route takes.
func jsonOf(params url.Values) string {
	body := map[string]string{}
	for k := range params {
		body[k] = params.Get(k)
	}
	b, _ := json.Marshal(body)
	return string(b)
}

// computeMapAt computes the map of a map route (".../map", ".../space",
// ".../context-map", ".../space/neighbours") by a POST of params, waits for
// its job if one started, and returns the GET of the same map; an error
// answer of the POST is returned as it is.
func (ts *testServer) computeMapAt(route string, params url.Values) *httptest.ResponseRecorder {
	t := ts.t
	t.Helper()
	rec := ts.doJSON(http.MethodPost, route, jsonOf(params))
	switch rec.Code {
	case http.StatusAccepted:
		if j := ts.waitJob(decode[map[string]string](t, rec)["job_id"]); j.State != store.JobDone {
			t.Fatalf("POST %s %s: job %s: %s", route, jsonOf(params), j.State, j.Message)
		}
	case http.StatusOK:
	default:
		return rec
	}
	return ts.doJSON(http.MethodGet, route+"?"+params.Encode(), "")
}

// TestGetStartsNoWork: no GET computes a map. A GET of each map route (two
// whole-space maps, a term map, its overlay of a document, a context map,
// the whole space's neighbours) and of the explorer pages that show them —
// without browser headers (curl), from the server's own page or from
// another site (an <img>, a link, another port, a foreign Origin or
// Referer) — starts no job and stores no map: a map route answers 404 with
// the state "not-computed" and the POST that computes it, a page 200.
// Before, the same GETs from curl or the app's pages started the jobs and
// computed the maps, and those from another site were refused (403). A POST
// from another site is refused (403), one with a form, text/plain or no
// body gets 415 or 400, storing nothing; the same-origin POSTs compute the
// maps (202 with a job, or 200 at once), the GETs then read them, and a
// second POST of a computed map answers it and starts nothing.
func TestGetStartsNoWork(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	_, model, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := demotest.OOVDocument(t, model.Vocabulary())
	m := "/api/models/" + modelID
	// Parameters no other test computes (maps are stored in the store the
	// tests share; the context map and the centroids live in memory).
	maps := []struct {
		route  string
		params url.Values
	}{
		{m + "/space", url.Values{"iters": {"250"}, "seed": {"201"}}},
		{m + "/space", url.Values{"iters": {"260"}, "seed": {"202"}, "variant": {"ce"}}},
		{m + "/map", url.Values{"term": {"crane,house"}, "variant": {"ce"}}},
		{m + "/map", url.Values{"term": {"crane,house"}, "variant": {"ce"}, "docs": {doc.ID}}},
		{m + "/context-map", url.Values{"doc": {doc.ID}, "variant": {"ce"}}},
		{m + "/space/neighbours", url.Values{"term": {"crane"}, "variant": {"ce"}, "k": {"5"}}},
	}
	pages := []string{
		"/explorer?model=" + modelID + "&term=crane,house&variant=ce",
		"/explorer?model=" + modelID + "&view=space&iters=250&seed=201",
		"/explorer?model=" + modelID + "&context_doc=" + doc.ID + "&variant=ce",
	}
	headers := []struct {
		name string
		hdr  []string
	}{
		{"curl", nil},
		{"the server's own page", []string{"Sec-Fetch-Site", "same-origin", "Referer", "http://" + testHost + "/explorer"}},
		{"img on another site", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image", "Referer", "http://evil.example/"}},
		{"link from another site", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}},
		{"another origin of the site", []string{"Sec-Fetch-Site", "same-site", "Host", "localhost:8080", "Referer", "http://localhost:9999/"}},
		{"foreign Origin", []string{"Origin", "http://evil.example"}},
		{"foreign Referer, no Fetch metadata", []string{"Referer", "http://evil.example/page.html"}},
	}
	jobs0, maps0 := ts.storedRows()
	nothingStarted := func(after string) {
		t.Helper()
		if j, mp := ts.storedRows(); j != jobs0 || mp != maps0 {
			t.Errorf("after %s: %d jobs and %d maps stored, want %d and %d", after, j, mp, jobs0, maps0)
		}
		if n := len(ts.jobs.Active()); n != 0 {
			t.Errorf("after %s: %d jobs running or queued, want none", after, n)
		}
	}
	for _, h := range headers {
		for _, mp := range maps {
			path := mp.route + "?" + mp.params.Encode()
			rec := ts.send(http.MethodGet, path, "", h.hdr...)
			st := decode[mapStateJSON](t, rec)
			if rec.Code != http.StatusNotFound || st.State != stateNotComputed || st.Compute.Method != http.MethodPost ||
				st.Compute.URL != mp.route || !strings.Contains(st.Error, "not computed") {
				t.Errorf("%s: GET %s: %d %s; want 404, not computed, with the POST that computes it", h.name, path, rec.Code, rec.Body)
			}
		}
		for _, p := range pages {
			if rec := ts.send(http.MethodGet, p, "", h.hdr...); rec.Code != http.StatusOK {
				t.Errorf("%s: GET %s: %d, want 200", h.name, p, rec.Code)
			}
		}
	}
	nothingStarted("the GETs")

	// POSTs that may not compute.
	for _, mp := range maps {
		body := jsonOf(mp.params)
		wantJSONError(t, ts.send(http.MethodPost, mp.route, body, "Content-Type", "application/json", "Origin", "http://evil.example"),
			http.StatusForbidden, "cross-site request refused")
		wantJSONError(t, ts.send(http.MethodPost, mp.route, mp.params.Encode(), "Content-Type", "application/x-www-form-urlencoded"),
			http.StatusUnsupportedMediaType, "application/json")
		wantJSONError(t, ts.send(http.MethodPost, mp.route, body, "Content-Type", "text/plain"), http.StatusUnsupportedMediaType, "application/json")
		wantJSONError(t, ts.send(http.MethodPost, mp.route, ""), http.StatusBadRequest, "JSON")
		wantJSONError(t, ts.doJSON(http.MethodPost, mp.route, `{"bogus":1}`), http.StatusBadRequest, "unknown field")
	}
	for _, p := range pages {
		u, _ := url.Parse(p)
		if rec := ts.send(http.MethodPost, "/explorer", u.RawQuery, "Content-Type", "application/x-www-form-urlencoded"); rec.Code != http.StatusForbidden {
			t.Errorf("POST /explorer without the CSRF token: %d, want 403", rec.Code)
		}
	}
	nothingStarted("the refused POSTs")

	// The POSTs compute; the GETs then read.
	for _, mp := range maps {
		rec := ts.computeMapAt(mp.route, mp.params)
		if rec.Code != http.StatusOK {
			t.Fatalf("POST then GET %s %s: %d %s", mp.route, jsonOf(mp.params), rec.Code, rec.Body)
		}
	}
	jobs1, maps1 := ts.storedRows()
	if jobs1 != jobs0+3 || maps1 != maps0+3 {
		t.Errorf("the POSTs stored %d jobs and %d maps, want 3 and 3 (two whole-space maps and a term map)", jobs1-jobs0, maps1-maps0)
	}
	for _, mp := range maps {
		if rec := ts.doJSON(http.MethodPost, mp.route, jsonOf(mp.params)); rec.Code != http.StatusOK {
			t.Errorf("POST %s %s again: %d, want 200 (computed)", mp.route, jsonOf(mp.params), rec.Code)
		}
	}
	if j, _ := ts.storedRows(); j != jobs1 {
		t.Errorf("POSTs of computed maps started %d jobs", j-jobs1)
	}

	// The explorer's forms post the page's parameters with its CSRF token
	// and are sent to the page, which shows the map or follows its job.
	ck, tok := ts.pageCSRF()
	form := url.Values{"model": {modelID}, "view": {"space"}, "iters": {"250"}, "seed": {"204"}}
	rec := ts.formPost("/explorer", form, ck, tok, false)
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/explorer?") || !strings.Contains(loc, "seed=204") {
		t.Fatalf("POST /explorer: %d to %q, want 303 to the explorer page", rec.Code, loc)
	}
	if j, _ := ts.storedRows(); j != jobs1+1 {
		t.Errorf("POST /explorer stored %d jobs, want 1", j-jobs1)
	}
	// A form whose map cannot be made gets the explorer page saying why.
	rec = ts.formPost("/explorer", url.Values{"model": {modelID}, "term": {"nope-nope"}}, ck, tok, false)
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "not in the model") || !strings.Contains(rec.Body.String(), `data-testid="explorer-form"`) {
		t.Errorf("POST /explorer of an unknown term: %d, want 404 and the explorer page naming the term", rec.Code)
	}
	for _, j := range ts.jobs.Active() {
		ts.waitJob(j.Row.ID)
	}
}

// TestMapQueueCap: the map POSTs keep the queue cap: with the interactive
// lane's slot taken and a map job waiting (--max-queued 1), another term map
// is refused with 429 and Retry-After, from the API and from the
// explorer's form, and nothing is stored.
func TestMapQueueCap(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	ts.close()
	ts = openTestServer(t, ts.dir, Config{TrainSlots: 1, MaxQueued: 1})
	release := make(chan struct{})
	block := func(ctx context.Context, rep *jobs.Reporter) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}
	var held []string
	for i := range 2 { // one running, one waiting
		j, err := ts.jobs.Submit("map", modelID, nil, block)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, j.ID)
		if i == 0 && !waitState(ts, j.ID, store.JobRunning) {
			t.Fatal("the first job did not start")
		}
	}
	defer func() {
		close(release)
		for _, id := range held {
			ts.waitJob(id)
		}
	}()
	jobs0, maps0 := ts.storedRows()
	params := url.Values{"term": {"crane,bass"}, "variant": {"ce"}}
	rec := ts.doJSON(http.MethodPost, "/api/models/"+modelID+"/map", jsonOf(params))
	wantJSONError(t, rec, http.StatusTooManyRequests, "too many queued jobs", "the limit is 1")
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	ck, tok := ts.pageCSRF()
	form := url.Values{"model": {modelID}, "term": {"crane,bass"}, "variant": {"ce"}}
	if rec := ts.formPost("/explorer", form, ck, tok, false); rec.Code != http.StatusTooManyRequests {
		t.Errorf("explorer form with a full queue: %d, want 429", rec.Code)
	}
	if j, mp := ts.storedRows(); j != jobs0 || mp != maps0 {
		t.Errorf("refused map requests stored %d jobs and %d maps", j-jobs0, mp-maps0)
	}
}

// waitState reports whether job id is in state, after waiting for it up to
// a second.
func waitState(ts *testServer, id, state string) bool {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if j, _, err := ts.jobs.Get(context.Background(), id); err == nil && j.State == state {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
