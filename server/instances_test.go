package server

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/app"
)

// TestInstanceMapAPI: a GET of the instance map before it is computed is a
// 404 with its state; the POST computes it (a job), and the GET then answers
// its binary form: one instance per vocabulary tag of each training
// document, in document order, the header naming the vocabulary and the
// whole-space map's t-SNE settings. The documents route lists the training
// documents the "doc" column indexes, and refuses indices out of range.
func TestInstanceMapAPI(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	route := "/api/models/" + modelID + "/instances"
	q := url.Values{"seed": {"3"}}
	if rec := ts.doJSON(http.MethodGet, route+"?"+q.Encode(), ""); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"not-computed"`) {
		t.Fatalf("GET before computing: %d %s", rec.Code, rec.Body)
	}
	rec := ts.computeMapAt(route, q)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("GET after computing: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	h, in, err := decodeInstances(rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	row, m, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := ts.trainingDocs(context.Background(), row, m)
	if err != nil {
		t.Fatal(err)
	}
	tags := make([][]string, len(docs))
	for i, d := range docs {
		tags[i] = d.Tags
	}
	if h.N != app.CountInstances(m, tags) || h.Documents != len(docs) || h.Seed != 3 || h.Stride != 1 || !(h.Perplexity > 0) ||
		len(h.Terms) != m.Vocabulary().Len() || h.Topics != app.NumTopics(m) {
		t.Fatalf("header %+v: want %d instances of %d documents, seed 3, the vocabulary and the t-SNE perplexity", h, app.CountInstances(m, tags), len(docs))
	}
	if !slices.IsSorted(in.Doc) {
		t.Error("the instances are not in document order")
	}
	for i := range min(h.N, 50) {
		if d := docs[in.Doc[i]]; !slices.Contains(d.Tags, h.Terms[in.Term[i]]) {
			t.Errorf("instance %d: term %q is not a tag of document %s %v", i, h.Terms[in.Term[i]], d.ID, d.Tags)
		}
	}
	// The documents behind the instances.
	rec = ts.doJSON(http.MethodGet, route+"/docs?doc=0,1", "")
	got := decode[struct{ Docs []instanceDoc }](t, rec)
	if rec.Code != http.StatusOK || len(got.Docs) != 2 || got.Docs[1].ID != docs[1].ID || !slices.Equal(got.Docs[1].Tags, docs[1].Tags) {
		t.Fatalf("documents 0 and 1: %d %+v", rec.Code, got)
	}
	for _, bad := range []string{"", "-1", "x", "999999999"} {
		if rec := ts.doJSON(http.MethodGet, route+"/docs?doc="+bad, ""); rec.Code != http.StatusBadRequest {
			t.Errorf("doc=%q: %d, want 400", bad, rec.Code)
		}
	}
}
