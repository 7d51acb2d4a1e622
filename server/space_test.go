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

// TestSpaceMap checks the whole-space map API on a trained model: a POST
// starts a job (202), then the map answers with one point per term
// (parallel arrays, each term once); the neighbours of a term are k other
// terms, nearest first; bad parameters are refused with the reason.
func TestSpaceMap(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	var oovTerm string
	route := "/api/models/" + modelID + "/space"
	for _, proj := range []string{"pca", "tsne"} {
		rec := ts.computeMapAt(route, url.Values{"projection": {proj}})
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", proj, rec.Code, rec.Body)
		}
		sm := decode[spaceMap](t, rec)
		n := len(sm.Terms)
		if n < 4 || len(sm.X) != n || len(sm.Y) != n || len(sm.Docs) != n || sm.Projection != proj {
			t.Fatalf("%s: %d terms, %d x, %d y, %d counts, projection %q", proj, n, len(sm.X), len(sm.Y), len(sm.Docs), sm.Projection)
		}
		seen := map[string]bool{}
		for i, term := range sm.Terms {
			if seen[term] || sm.Docs[i] < 1 {
				t.Fatalf("%s: term %q listed twice or with %d documents", proj, term, sm.Docs[i])
			}
			seen[term] = true
		}
		// The corpus's tags outside the vocabulary come after its terms.
		if sm.OOVFrom < 4 || sm.OOVFrom >= n {
			t.Fatalf("%s: oov_from %d of %d points; the corpus has tags outside the vocabulary", proj, sm.OOVFrom, n)
		}
		if proj == "tsne" {
			oovTerm = sm.Terms[n-1]
		}
		spread := slices.Max(sm.X) - slices.Min(sm.X) + slices.Max(sm.Y) - slices.Min(sm.Y)
		if !(spread > 0) {
			t.Errorf("%s: every point at one place", proj)
		}
	}
	// t-SNE's controls make another map, cached under its own key.
	var maps [2]spaceMap
	for i, q := range []url.Values{{"projection": {"tsne"}}, {"projection": {"tsne"}, "perplexity": {"5"}, "iters": {"300"}, "seed": {"2"}}} {
		rec := ts.computeMapAt(route, q)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		maps[i] = decode[spaceMap](t, rec)
	}
	if slices.Equal(maps[0].X, maps[1].X) {
		t.Error("another perplexity, iteration count and seed gave the same map")
	}
	// This server computed the model's centroids for its maps: a GET of the
	// neighbours reads them.
	term := "guitar"
	rec := ts.do(http.MethodGet, "/api/models/"+modelID+"/space/neighbours?k=5&term="+term, nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("neighbours: %d %s", rec.Code, rec.Body)
	}
	res := decode[struct {
		Neighbours []app.Neighbour `json:"neighbours"`
	}](t, rec)
	if len(res.Neighbours) != 5 {
		t.Fatalf("%d neighbours, want 5", len(res.Neighbours))
	}
	for i, nb := range res.Neighbours {
		if nb.Term == term || (i > 0 && nb.Distance < res.Neighbours[i-1].Distance) {
			t.Errorf("neighbour %d: %+v (the term itself, or out of order)", i, nb)
		}
	}
	// A tag outside the vocabulary has vocabulary terms as neighbours.
	rec = ts.do(http.MethodGet, "/api/models/"+modelID+"/space/neighbours?k=5&term="+url.QueryEscape(oovTerm), nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("neighbours of %q: %d %s", oovTerm, rec.Code, rec.Body)
	}
	oov := decode[struct {
		OOV        bool            `json:"oov"`
		Neighbours []app.Neighbour `json:"neighbours"`
	}](t, rec)
	if !oov.OOV || len(oov.Neighbours) != 5 {
		t.Fatalf("neighbours of %q: oov %v, %d neighbours", oovTerm, oov.OOV, len(oov.Neighbours))
	}
	_, m, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	for i, nb := range oov.Neighbours {
		if _, ok := m.Vocabulary().ID(nb.Term); !ok || (i > 0 && nb.Distance < oov.Neighbours[i-1].Distance) {
			t.Errorf("neighbour %d of %q: %+v (outside the vocabulary, or out of order)", i, oovTerm, nb)
		}
	}
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/space?projection=umap", http.StatusBadRequest, "projection"},
		{"/space?perplexity=0", http.StatusBadRequest, "perplexity"},
		{"/space?perplexity=101", http.StatusBadRequest, "perplexity"},
		{"/space?perplexity=abc", http.StatusBadRequest, "perplexity"},
		{"/space?iters=10", http.StatusBadRequest, "iters"},
		{"/space?seed=-1", http.StatusBadRequest, "seed"},
		{"/space?variant=word2vec", http.StatusBadRequest, "variant"},
		{"/space/neighbours?term=" + term + "&k=0", http.StatusBadRequest, "k must be"},
		{"/space/neighbours?term=" + term + "&k=101", http.StatusBadRequest, "k must be"},
		{"/space/neighbours", http.StatusBadRequest, "term is required"},
		{"/space/neighbours?term=no-such-tag", http.StatusNotFound, "neither in the model's vocabulary nor a tag of its corpus"},
	} {
		rec := ts.do(http.MethodGet, "/api/models/"+modelID+c.path, nil, "")
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s: %d %s; want %d naming %q", c.path, rec.Code, rec.Body, c.code, c.want)
		}
		// The POST of the same parameters is refused the same way.
		u, _ := url.Parse(c.path)
		if rec := ts.doJSON(http.MethodPost, "/api/models/"+modelID+u.Path, jsonOf(u.Query())); rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("POST %s: %d %s; want %d naming %q", c.path, rec.Code, rec.Body, c.code, c.want)
		}
	}
	if rec := ts.do(http.MethodGet, "/api/models/nope/space", nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("unknown model: %d", rec.Code)
	}
}
