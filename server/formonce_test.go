package server

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/taglens/taglens/views"
)

// TestTrainFormOnce: the training form carries a form id; the same form
// submitted twice in a row, or four times at once, starts one training and
// sends every submission to the same model page. A submission that failed
// (a bad seed) is forgotten: the corrected form, with the same id, then
// starts its training. Before, each submission started a training.
func TestTrainFormOnce(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	formID := func() string {
		doc, _ := ts.page("/train")
		id, ok := doc.Find(`form[data-testid="train-form"] input[name="` + views.FormIDField + `"]`).Attr("value")
		if !ok || !validFormID(id) {
			t.Fatalf("the training form has no valid form id (%q)", id)
		}
		return id
	}
	ck, tok := ts.pageCSRF()
	post := func(id, seed string) *http.Response {
		form := url.Values{"corpus_id": {c.ID}, "seed": {seed}, "hidden": {"8,4"}, "max_epochs1": {"1"}, "max_epochs2": {"1"},
			views.FormIDField: {id}}
		return ts.formPost("/train", form, ck, tok, false).Result()
	}
	models := func() int { return ts.count("/api/models") }

	id := formID()
	if id2 := formID(); id2 == id {
		t.Fatalf("two renderings of the form have the same id %q", id)
	}
	first, second := post(id, "1"), post(id, "1")
	if first.StatusCode != http.StatusSeeOther || second.StatusCode != http.StatusSeeOther {
		t.Fatalf("statuses %d, %d, want 303", first.StatusCode, second.StatusCode)
	}
	if a, b := first.Header.Get("Location"), second.Header.Get("Location"); a != b {
		t.Errorf("the second submission went to %s, the first to %s", b, a)
	}
	if n := models(); n != 1 {
		t.Errorf("%d models after the same form twice, want 1", n)
	}

	// Four at once.
	id = formID()
	var wg sync.WaitGroup
	locs := make([]string, 4)
	for i := range locs {
		wg.Go(func() {
			resp := post(id, "2")
			locs[i] = resp.Header.Get("Location")
		})
	}
	wg.Wait()
	for _, l := range locs[1:] {
		if l != locs[0] || l == "" {
			t.Errorf("concurrent submissions went to %q", locs)
			break
		}
	}
	if n := models(); n != 2 {
		t.Errorf("%d models after a second form sent four times at once, want 2", n)
	}

	// A failed submission is not remembered.
	id = formID()
	if resp := post(id, "minus one"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad seed: status %d", resp.StatusCode)
	}
	if resp := post(id, "3"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("corrected form: status %d", resp.StatusCode)
	}
	if n := models(); n != 3 {
		t.Errorf("%d models after a corrected form, want 3", n)
	}
	t.Logf("3 forms, 7 submissions: %d trainings", models())
}

// sendTimes sends the same request n times at once and returns the answers.
func sendTimes(n int, send func() *http.Response) []*http.Response {
	out := make([]*http.Response, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() { out[i] = send() })
	}
	wg.Wait()
	return out
}

// sameRedirect checks that every answer is a 303 to one place, and returns it.
func sameRedirect(t *testing.T, what string, rs ...*http.Response) string {
	t.Helper()
	loc := rs[0].Header.Get("Location")
	for _, r := range rs {
		if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != loc || loc == "" {
			t.Errorf("%s: answers %d to %q and %d to %q, want 303s to one page", what, rs[0].StatusCode, loc, r.StatusCode, r.Header.Get("Location"))
			break
		}
	}
	return loc
}

// TestCompareFormOnce: the comparison form carries a form id like the
// training form; sent twice in a row, or four times at once, it starts one
// evaluation and sends every submission to its page; a submission that
// failed (trials not a number) is forgotten, and the corrected form then
// starts its evaluation. Before, each submission started an evaluation.
func TestCompareFormOnce(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	formID := func() string {
		doc, _ := ts.page("/compare")
		id, ok := doc.Find(`form[data-testid="compare-form"] input[name="` + views.FormIDField + `"]`).Attr("value")
		if !ok || !validFormID(id) {
			t.Fatalf("the comparison form has no valid form id (%q)", id)
		}
		return id
	}
	ck, tok := ts.pageCSRF()
	post := func(id, trials string) *http.Response {
		form := url.Values{"model_ids": {modelID}, "baselines": {"random"}, "subset": {"test"}, "protocol": {"priming"},
			"setting": {"within-corpus"}, "trials": {trials}, views.FormIDField: {id}}
		return ts.formPost("/compare", form, ck, tok, false).Result()
	}
	evals := func() int { return ts.count("/api/evaluations") }
	n0 := evals()
	id := formID()
	if id2 := formID(); id2 == id {
		t.Fatalf("two renderings of the form have the same id %q", id)
	}
	loc := sameRedirect(t, "the same form twice", post(id, "1"), post(id, "1"))
	if !strings.HasPrefix(loc, "/compare/") {
		t.Errorf("sent to %q, want an evaluation's page", loc)
	}
	if n := evals() - n0; n != 1 {
		t.Errorf("%d evaluations after the same form twice, want 1", n)
	}
	id = formID()
	sameRedirect(t, "a form four times at once", sendTimes(4, func() *http.Response { return post(id, "1") })...)
	if n := evals() - n0; n != 2 {
		t.Errorf("%d evaluations after a second form sent four times at once, want 2", n)
	}
	id = formID()
	if resp := post(id, "one"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad trials: status %d", resp.StatusCode)
	}
	if resp := post(id, "1"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("corrected form: status %d", resp.StatusCode)
	}
	if n := evals() - n0; n != 3 {
		t.Errorf("%d evaluations after a corrected form, want 3", n)
	}
	for _, j := range ts.jobs.Active() {
		ts.waitJob(j.Row.ID)
	}
}

// TestUploadFormOnce: the corpora page's upload form sent twice in a row,
// or four times at once, stores one corpus and sends every submission to
// its page (an upload is known by its content: Store.InsertUpload).
func TestUploadFormOnce(t *testing.T) {
	ts := newTestServer(t, Config{})
	ck, tok := ts.pageCSRF()
	post := func() *http.Response {
		body, ct := multipartBody(t, [][2]string{{"csrf_token", tok}, {"name", "twice"}}, "c.tsv", smallTSV())
		return ts.send(http.MethodPost, "/corpora", body.String(), "Content-Type", ct, "Origin", "http://"+testHost, "Cookie", ck.String()).Result()
	}
	sameRedirect(t, "the same upload twice", post(), post())
	sameRedirect(t, "the same upload four times at once", sendTimes(4, post)...)
	if n := ts.count("/api/corpora"); n != 1 {
		t.Errorf("%d corpora after the same upload form six times, want 1", n)
	}
}

// TestExplorerFormOnce: the explorer's form sent twice in a row, or four
// times at once, starts one map job (a running job of the same map is
// joined, a computed map read) and sends every submission to the page of
// its map.
func TestExplorerFormOnce(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	ck, tok := ts.pageCSRF()
	post := func(seed string) *http.Response {
		form := url.Values{"model": {modelID}, "view": {"space"}, "iters": {"250"}, "seed": {seed}}
		return ts.formPost("/explorer", form, ck, tok, false).Result()
	}
	jobs0, _ := ts.storedRows()
	sameRedirect(t, "the same form twice", post("301"), post("301"))
	sameRedirect(t, "a form four times at once", sendTimes(4, func() *http.Response { return post("302") })...)
	if j, _ := ts.storedRows(); j != jobs0+2 {
		t.Errorf("%d map jobs after two forms sent six times, want 2", j-jobs0)
	}
	for _, j := range ts.jobs.Active() {
		ts.waitJob(j.Row.ID)
	}
}
