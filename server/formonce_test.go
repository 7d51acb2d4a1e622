package server

import (
	"net/http"
	"net/url"
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
