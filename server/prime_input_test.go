package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// pageAt fetches a page that may answer with an error status and parses it.
func (ts *testServer) pageAt(path string, status int) *goquery.Document {
	ts.t.Helper()
	rec := ts.do(http.MethodGet, path, nil, "")
	if rec.Code != status {
		ts.t.Fatalf("GET %s: status %d, want %d (%.300s)", path, rec.Code, status, rec.Body)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	if err != nil {
		ts.t.Fatal(err)
	}
	return doc
}

// TestPrimeTypedTagsAPI: the prime API matches a typed tag ignoring case
// when no term is spelled so, lists unknown tags next to known ones as OOV
// with suggestions, names the tags and the variant when none is known, and
// refuses an explicit k of 0 while an omitted k is 10.
func TestPrimeTypedTagsAPI(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	base := "/api/models/" + modelID + "/prime"
	type answer struct {
		OOV         []string            `json:"oov"`
		PerTerm     map[string][]any    `json:"per_term"`
		Matched     map[string]string   `json:"matched"`
		Suggestions map[string][]string `json:"suggestions"`
	}
	rec := ts.doJSON(http.MethodPost, base, `{"tags":["Guitar","acoustic","zzqx-nonsense","Guitarr"],"k":5}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("prime Guitar, acoustic, …: %d %s", rec.Code, rec.Body)
	}
	pr := decode[answer](t, rec)
	if pr.Matched["Guitar"] != "guitar" || len(pr.PerTerm["guitar"]) != 5 {
		t.Errorf("Guitar: matched %v, per-term lists for %v; want Guitar → guitar with 5 terms", pr.Matched, mapKeys(pr.PerTerm))
	}
	if strings.Join(pr.OOV, ",") != "zzqx-nonsense,Guitarr" {
		t.Errorf("OOV %v, want zzqx-nonsense and Guitarr", pr.OOV)
	}
	if s := pr.Suggestions["Guitarr"]; len(s) == 0 || s[0] != "guitar" {
		t.Errorf("suggestions for Guitarr: %v, want guitar first", s)
	}

	rec = ts.doJSON(http.MethodPost, base, `{"tags":["Guitarr","zzqx-nonsense"],"variant":"ce"}`)
	wantError(t, rec, http.StatusUnprocessableEntity, "vocabulary")
	msg := decode[map[string]string](t, rec)["error"]
	for _, want := range []string{`"Guitarr"`, `"zzqx-nonsense"`, "(CE embedding)", "guitar"} {
		if !strings.Contains(msg, want) {
			t.Errorf("all unknown: error %q does not name %s", msg, want)
		}
	}
	wantError(t, ts.doJSON(http.MethodPost, base, `{"tags":["guitar"],"k":0}`), http.StatusBadRequest, "k must be an integer in 1..1000, got 0")
	wantError(t, ts.doJSON(http.MethodPost, base, `{"tags":["guitar"],"k":-2}`), http.StatusBadRequest, "got -2")
	rec = ts.doJSON(http.MethodPost, base, `{"tags":["guitar"]}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("prime without k: %d %s", rec.Code, rec.Body)
	}
	if n := len(decode[answer](t, rec).PerTerm["guitar"]); n != 10 {
		t.Errorf("prime without k: %d terms, want the default 10", n)
	}
	// Embedding and maps take typed tags alike.
	if rec := ts.doJSON(http.MethodPost, "/api/models/"+modelID+"/embed", `{"tags":["GUITAR","acoustic"]}`); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"guitar"`) {
		t.Errorf("embed GUITAR: %d %.200s", rec.Code, rec.Body)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/map?term=Guitarr", ""), http.StatusNotFound, "did you mean guitar")
}

// TestPrimingPageTypedTags: the priming page shows what a typed tag matched
// ignoring case, lists nonsense tags among known ones as OOV with their
// suggestions, answers an empty tag list and a K of 0 with a message (400),
// and, when no tag is known, names the tags and the variant and links the
// suggestions (422).
func TestPrimingPageTypedTags(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	page := func(q url.Values) string {
		q.Set("model", modelID)
		return "/priming?" + q.Encode()
	}
	doc := ts.pageAt(page(url.Values{"tags": {"Guitar, acoustic, zzqx-nonsense"}, "k": {"5"}}), http.StatusOK)
	if got := strings.Join(strings.Fields(testid(doc, "folded-tag").Text()), " "); got != "Guitar → guitar" {
		t.Errorf("folded tags: %q, want Guitar → guitar", got)
	}
	if got := testid(doc, "oov-tag").Text(); got != "zzqx-nonsense" {
		t.Errorf("OOV tags: %q, want zzqx-nonsense", got)
	}
	if testid(doc, "oov-note").Length() != 1 || !strings.Contains(testid(doc, "oov-item").Text(), "no close term") {
		t.Errorf("the nonsense tag is not explained: %q", testid(doc, "oov-tags").Text())
	}
	if n := testid(doc, "per-term").Length(); n != 3 {
		t.Errorf("per-term lists: %d, want 3 (guitar, acoustic, the OOV tag)", n)
	}
	if n := testid(doc, "ranked-extended").Find(`[data-testid="ranked-item"]`).Length(); n != 5 {
		t.Errorf("extended list: %d items, want 5", n)
	}

	doc = ts.pageAt(page(url.Values{"tags": {" , "}}), http.StatusBadRequest)
	if got := testid(doc, "error").Text(); !strings.Contains(got, "at least one tag") {
		t.Errorf("empty tags: error %q", got)
	}
	doc = ts.pageAt(page(url.Values{"tags": {"guitar"}, "k": {"0"}}), http.StatusBadRequest)
	if got := testid(doc, "error").Text(); !strings.Contains(got, "K must be an integer in 1..1000") || !strings.Contains(got, `"0"`) {
		t.Errorf("k=0: error %q", got)
	}
	if v, _ := testid(doc, "k-input").Attr("value"); v != "0" {
		t.Errorf("k=0: the form shows K %q, want the 0 typed", v)
	}
	doc = ts.pageAt(page(url.Values{"tags": {"guitar"}}), http.StatusOK)
	if n := testid(doc, "ranked-extended").Find(`[data-testid="ranked-item"]`).Length(); n != 10 {
		t.Errorf("no k: %d items, want 10", n)
	}

	doc = ts.pageAt(page(url.Values{"tags": {"Guitarr, zzqx-nonsense"}, "variant": {"ce"}}), http.StatusUnprocessableEntity)
	msg := testid(doc, "error").Text()
	for _, want := range []string{"Guitarr", "zzqx-nonsense", "CE embedding"} {
		if !strings.Contains(msg, want) {
			t.Errorf("all unknown: error %q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "ce: prime") {
		t.Errorf("all unknown: error %q is the library's", msg)
	}
	href, ok := testid(doc, "suggestion").First().Attr("href")
	if !ok || testid(doc, "suggestion").First().Text() != "guitar" {
		t.Fatalf("all unknown: no suggestion link to guitar (%q)", testid(doc, "oov-tags").Text())
	}
	u, _ := url.Parse(href)
	if got := u.Query().Get("tags"); got != "guitar, zzqx-nonsense" || u.Query().Get("variant") != "ce" {
		t.Errorf("suggestion link %s: tags %q, want the set with Guitarr replaced, same variant", href, got)
	}
	ts.pageAt(href, http.StatusOK)

	// The explorer's term is matched alike.
	doc = ts.pageAt("/explorer?model="+modelID+"&term=Guitar", http.StatusOK)
	if u, _ := testid(doc, "map").Attr("data-map-url"); !strings.Contains(u, "term=guitar&") {
		t.Errorf("explorer for Guitar: map URL %q, want the term guitar", u)
	}
	doc = ts.pageAt("/explorer?model="+modelID+"&term=Guitarr", http.StatusOK)
	if got := testid(doc, "error").Text(); !strings.Contains(got, "did you mean guitar") {
		t.Errorf("explorer for Guitarr: error %q, want a suggestion", got)
	}
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
