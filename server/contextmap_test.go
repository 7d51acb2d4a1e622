package server

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/demotest"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/cluster"
	"github.com/taglens/taglens/ml/corpus"
)

// TestContextMap draws Figure 7 for a demo document holding a reserved OOV tag.
// Independent check: the positives' distances before t-SNE equal those of the
// CE rows EmbedDocument computes for the same document's in-vocabulary tags.
func TestContextMap(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	_, m, err := ts.model(t.Context(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	doc, ids, oov := demotest.OOVDocument(t, m.Vocabulary())
	rec := ts.computeMapAt("/api/models/"+modelID+"/context-map", url.Values{"doc": {doc.ID}, "variant": {"ce"}})
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	md := decode[mapData](t, rec)
	count := map[string]int{}
	for _, p := range md.Points {
		count[p.Kind]++
		if p.Kind == "positive" && !hasTag(doc.Tags, p.Term) {
			t.Errorf("positive %q is not a tag of %v", p.Term, doc.Tags)
		}
		if p.Kind == "negative" && hasTag(doc.Tags, p.Term) {
			t.Errorf("negative %q is a tag of the document", p.Term)
		}
		if math.IsNaN(p.X) || math.IsNaN(p.Y) {
			t.Fatalf("NaN coordinate: %+v", p)
		}
	}
	v := m.Vocabulary().Len()
	wantNeg := min(v-len(ids), app.MaxNegatives)
	if count["positive"] != len(ids) || count["negative"] != wantNeg || count["oov"] != 1 || count["oov-avg"] != 1 || md.Term != oov[0] {
		t.Errorf("got %v for term %q, want %d positive, %d negative, 1 oov, 1 oov-avg for %q", count, md.Term, len(ids), wantNeg, oov[0])
	}

	// The MDS input of the positives against EmbedDocument's CE rows: the
	// centres' distances, not divided by the term widths.
	rows := make([]float64, len(ids)*v)
	m.CentreModel(ce.VariantCE).Distances(ids, ids, nil, rows)
	eids, _, vecs, _, err := m.EmbedDocument(ce.VariantCE, doc.Tags)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eids, ids) {
		t.Fatalf("EmbedDocument ids %v, want %v", eids, ids)
	}
	for a := range ids {
		for b := range ids {
			want := math.Sqrt(cluster.SqDist(vecs[a], vecs[b]))
			if got := rows[a*v+ids[b]]; math.Abs(got-want) > 1e-9*(1+want) {
				t.Errorf("distance %s-%s: Distances %v, EmbedDocument rows %v", m.Vocabulary().Term(ids[a]), m.Vocabulary().Term(ids[b]), got, want)
			}
		}
	}

	// Errors.
	base := "/api/models/" + modelID + "/context-map"
	wantError(t, ts.doJSON(http.MethodGet, base, ""), 400, "doc")
	wantError(t, ts.doJSON(http.MethodGet, base+"?doc=nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodGet, base+"?doc="+doc.ID+"&term=zzz", ""), 400, "zzz")
	wantError(t, ts.doJSON(http.MethodGet, base+"?doc="+doc.ID+"&variant=x", ""), 400, "variant")
	wantError(t, ts.doJSON(http.MethodGet, base+"?doc="+doc.ID+"&corpus=nosuch", ""), 404, "nosuch")
	c, _ := corpus.Demo(corpus.DemoSeed)
	train := corpus.DemoSplit(c).Train[0]
	if _, o := m.Vocabulary().Encode(c.Docs[train]); len(o) == 0 {
		wantError(t, ts.doJSON(http.MethodGet, base+"?doc="+c.Docs[train].ID+"&corpus="+corpusID, ""), 422, "no out-of-vocabulary")
	}
}

// TestMapJSONDocsOnce: a document's tags appear once in a map's JSON however
// many of its terms are points, and decoding restores every point's tags.
func TestMapJSONDocsOnce(t *testing.T) {
	tags := []string{"rock", "guitar", "loud", "a-long-tag-that-shows-up"}
	md := mapData{Term: "rock", Variant: "ce", KL: 0.5}
	for i, term := range tags {
		md.Points = append(md.Points, mapPoint{X: float64(i), Term: term, DocID: "d1", Corpus: "songs", Kind: "accompany", Tags: tags})
	}
	// The same id in another corpus is another document.
	md.Points = append(md.Points, mapPoint{Term: "jazz", DocID: "d1", Corpus: "other", Tags: []string{"jazz"}})
	b, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Docs []struct{ Tags []int }
		Tags []string
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Tags) != 5 || len(raw.Docs) != 2 || len(raw.Docs[0].Tags) != 4 {
		t.Errorf("want each tag once in the dictionary and each document once, with its tags as indices: %s", b)
	}
	var back mapData
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, md) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, md)
	}
	for _, bad := range []string{
		`{"x":[0],"y":[0],"doc":[3],"term_of":[0],"kind":[0],"cluster":[0],"docs":[],"terms":["a"],"kinds":["instance"]}`,
		`{"x":[0,1],"y":[0],"doc":[0],"term_of":[0],"kind":[0],"cluster":[0],"docs":[{"id":"d","tags":[]}],"terms":["a"],"kinds":["instance"]}`,
		`{"x":[0],"y":[0],"doc":[0],"term_of":[0],"kind":[0],"cluster":[0],"docs":[{"id":"d","tags":[7]}],"terms":["a"],"kinds":["instance"],"tags":[]}`,
	} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("a damaged map was accepted: %s", bad)
		}
	}
}

// TestStoredMapJSON: a map stored in the former form (one object per point,
// each document's tags once in "docs") is served in the columnar form with
// every point as it was; current bytes pass through unchanged.
func TestStoredMapJSON(t *testing.T) {
	old := `{"term":"rock","variant":"ce","kl":0.25,"points":[` +
		`{"x":1,"y":2,"term":"rock","doc_id":"d1","kind":"instance","corpus":"songs","cluster":1,"doc":0},` +
		`{"x":3,"y":4,"term":"rock","doc_id":"d2","kind":"instance","corpus":"songs","cluster":0,"doc":1}],` +
		`"docs":[{"corpus":"songs","id":"d1","tags":["rock","loud"]},{"corpus":"songs","id":"d2","tags":["rock","calm"]}]}`
	var got mapData
	if err := json.Unmarshal(storedMapJSON([]byte(old)), &got); err != nil {
		t.Fatal(err)
	}
	want := mapData{Term: "rock", Variant: "ce", KL: 0.25, Points: []mapPoint{
		{X: 1, Y: 2, Term: "rock", DocID: "d1", Kind: "instance", Corpus: "songs", Cluster: 1, Tags: []string{"rock", "loud"}},
		{X: 3, Y: 4, Term: "rock", DocID: "d2", Kind: "instance", Corpus: "songs", Cluster: 0, Tags: []string{"rock", "calm"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("converted:\n got %+v\nwant %+v", got, want)
	}
	cur, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(storedMapJSON(cur), cur) {
		t.Error("a map in the current form was changed")
	}
}

// TestMapBytesPerPoint measures the wire size of a 100,000-point map (the
// synthetic map of the load tests: 5 tags per document from a 10,000-tag
// vocabulary) gzip-compressed as the map endpoint serves it, and fails above
// 24 bytes a point.
func TestMapBytesPerPoint(t *testing.T) {
	const n = 100000
	b, err := json.Marshal(syntheticMap(n, "rock", 3))
	if err != nil {
		t.Fatal(err)
	}
	e := newMapEntry(b, nil, nil)
	per := float64(len(e.gz)) / n
	t.Logf("%d points: %d bytes of JSON, %d gzip-compressed, %.1f bytes a point", n, len(b), len(e.gz), per)
	if per > 24 {
		t.Errorf("%.1f bytes a point on the wire, want at most 24", per)
	}
}

// TestStoredMapTopics: a term map or a whole-space map stored before the
// maps had LDA topics is served with them (each document's topic, each
// term's topic, from the model); a map with topics passes through unchanged.
func TestStoredMapTopics(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	_, m, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	k := app.NumTopics(m)
	md := syntheticMap(50, "rock", 2)
	md.Topics = 0 // as stored before the maps had topics
	for i := range md.Points {
		md.Points[i].Topic = 0
	}
	md.Points[0].Tags = []string{"no-such-tag"} // no tag in the vocabulary: no topic
	b, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	var got mapData
	if err := json.Unmarshal(termMapJSON(m, b), &got); err != nil {
		t.Fatal(err)
	}
	if got.Topics != k || len(got.Points) != 50 {
		t.Fatalf("topics %d (want %d), %d points", got.Topics, k, len(got.Points))
	}
	for i, p := range got.Points {
		if want := app.DocumentTopic(m, p.Tags); p.Topic != want || (i == 0) != (want == -1) {
			t.Fatalf("point %d (tags %v): topic %d, want %d", i, p.Tags, p.Topic, want)
		}
	}
	cur, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(termMapJSON(m, cur), cur) {
		t.Error("a term map with topics was changed")
	}

	terms := []string{m.Vocabulary().Term(0), m.Vocabulary().Term(1), "no-such-term"}
	sb, err := json.Marshal(app.SpaceMap{Variant: "ce", Projection: "pca", Terms: terms, Docs: []int{3, 2, 1}, X: []float64{0, 1, 2}, Y: []float64{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	var sm app.SpaceMap
	if err := json.Unmarshal(spaceMapJSON(m, sb), &sm); err != nil {
		t.Fatal(err)
	}
	want := []int{app.TermTopic(m, terms[0]), app.TermTopic(m, terms[1]), -1}
	if sm.Topics != k || !reflect.DeepEqual(sm.Topic, want) || want[0] < 0 || want[1] < 0 {
		t.Errorf("space map topics %d %v, want %d %v", sm.Topics, sm.Topic, k, want)
	}
	cur, _ = json.Marshal(sm)
	if !bytes.Equal(spaceMapJSON(m, cur), cur) {
		t.Error("a space map with topics was changed")
	}
	for _, bad := range [][]byte{[]byte("not json"), []byte(`{"x":[1]}`)} {
		if got := termMapJSON(m, bad); !bytes.Equal(got, bad) {
			t.Errorf("unreadable bytes %q came back as %q", bad, got)
		}
		if got := spaceMapJSON(m, bad); !bytes.Equal(got, bad) {
			t.Errorf("unreadable bytes %q came back as %q", bad, got)
		}
	}
}
