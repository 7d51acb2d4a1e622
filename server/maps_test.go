package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

func TestMapAPI(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	base := "/api/models/" + modelID + "/map"
	wantError(t, ts.doJSON(http.MethodGet, base, ""), 400, "term")
	wantError(t, ts.doJSON(http.MethodGet, base+"?term=nope-nope", ""), 404, "vocabulary")
	wantError(t, ts.doJSON(http.MethodGet, base+"?term=guitar&variant=x", ""), 400, "variant")
	wantError(t, ts.doJSON(http.MethodGet, base+"?term=guitar&corpus=nosuch", ""), 404, "nosuch")

	rec := ts.computeMapAt(base, url.Values{"term": {"guitar"}, "variant": {"ce"}})
	if rec.Code != 200 {
		t.Fatalf("map: got %d (%s)", rec.Code, rec.Body)
	}
	md := decode[mapData](t, rec)
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
	// By cosine distance: the same number of terms, each within [0, 2], the
	// term itself first; another metric is refused by name.
	q.Set("metric", "cosine")
	rec = ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/neighbours?"+q.Encode(), "")
	var cos struct {
		Neighbours []struct {
			Term     string  `json:"term"`
			Distance float64 `json:"distance"`
		} `json:"neighbours"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cos); rec.Code != 200 || err != nil || len(cos.Neighbours) != 4 || cos.Neighbours[0].Term != "guitar" {
		t.Fatalf("cosine neighbours: %d %s (%v)", rec.Code, rec.Body, err)
	}
	for _, n := range cos.Neighbours {
		if n.Distance < -1e-12 || n.Distance > 2+1e-12 {
			t.Errorf("cosine distance %v of %s outside [0, 2]", n.Distance, n.Term)
		}
	}
	q.Set("metric", "manhattan")
	wantError(t, ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/neighbours?"+q.Encode(), ""), 400, "metric")

	// The map survives a restart: a new server over the same store serves it at
	// once (the first one closed: one server per data folder).
	ts.close()
	ts2 := openTestServer(t, ts.dir, Config{})
	if rec := ts2.doJSON(http.MethodGet, base+"?term=guitar&variant=ce", ""); rec.Code != http.StatusOK {
		t.Errorf("map after a restart: got %d, want 200", rec.Code)
	}
}

// TestMapTerms checks the map of several terms' instances: term=a,b gives
// the instances of both (repeats counted once), each point with its own term;
// an overlay leaves out the tags that are the map's terms; a term outside the
// vocabulary is named and more than the limit refused.
func TestMapTerms(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	base := "/api/models/" + modelID + "/map?variant=ce&term="
	route := "/api/models/" + modelID + "/map"
	get := func(q string) mapData {
		rec := ts.computeMapAt(route, url.Values{"variant": {"ce"}, "term": {q}})
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		return decode[mapData](t, rec)
	}
	md := get("guitar, drums,guitar")
	n := map[string]int{}
	for _, p := range md.Points {
		if p.Kind != "instance" || !hasTag(p.Tags, p.Term) || (p.Term != "guitar" && p.Term != "drums") {
			t.Fatalf("point %+v: want an instance of guitar or drums", p)
		}
		n[p.Term]++
	}
	if n["guitar"] < 4 || n["drums"] < 4 || md.Term != "guitar,drums" {
		t.Fatalf("map %q: %d guitar and %d drums instances", md.Term, n["guitar"], n["drums"])
	}
	// Overlay a document holding both terms: neither is overlaid again.
	var doc mapPoint
	for _, p := range md.Points {
		if hasTag(p.Tags, "guitar") && hasTag(p.Tags, "drums") {
			doc = p
			break
		}
	}
	if doc.DocID != "" {
		rec := ts.computeMapAt(route, url.Values{"variant": {"ce"}, "term": {"guitar,drums"}, "docs": {doc.DocID}})
		ov := decode[mapData](t, rec)
		for _, p := range ov.Points[len(md.Points):] {
			if p.Term == "guitar" || p.Term == "drums" {
				t.Errorf("overlay point %+v: the map's own term overlaid", p)
			}
		}
	}
	wantError(t, ts.doJSON(http.MethodGet, base+url.QueryEscape("guitar,nope-nope"), ""), 404, "nope-nope")
	wantError(t, ts.doJSON(http.MethodGet, base+url.QueryEscape(" , "), ""), 400, "term")
	wantError(t, ts.doJSON(http.MethodGet, base+url.QueryEscape("guitar,drums,rock,jazz,house,dance,loud,bass,riff,lake,folk"), ""), 400, "at most 10")
}

// TestMapOverlay overlays the accompany terms of two documents on a cached map
// (placed with tsne's Transform) and checks the base points do not move.
func TestMapOverlay(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	route := "/api/models/" + modelID + "/map"
	params := url.Values{"term": {"guitar"}, "variant": {"siamese-ce"}}
	md := decode[mapData](t, ts.computeMapAt(route, params))
	if len(md.Points) < 2 {
		t.Fatalf("base map: %d points", len(md.Points))
	}
	// The overlay is computed by a POST (a job when the map came from the
	// store, without its t-SNE state: the map is computed again), then read.
	params.Set("docs", md.Points[0].DocID+","+md.Points[1].DocID)
	rec := ts.computeMapAt(route, params)
	if rec.Code != 200 {
		t.Fatalf("overlay: %d %s", rec.Code, rec.Body)
	}
	ov := decode[mapData](t, rec)
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
	params.Set("docs", "nosuch")
	wantError(t, ts.doJSON(http.MethodPost, route, jsonOf(params)), 404, "nosuch")
}
