package server

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/cluster"
	"github.com/taglens/taglens/ml/corpus"
)

// TestClassicalMDS: points recovered from the squared distances of random
// points in R^d have the same pairwise distances (an analytic property of
// classical MDS for Euclidean input), in at most d dimensions.
func TestClassicalMDS(t *testing.T) {
	for _, tt := range []struct{ n, d int }{{5, 2}, {40, 10}, {120, 3}} {
		rng := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.d)))
		pts := make([][]float64, tt.n)
		for i := range pts {
			pts[i] = make([]float64, tt.d)
			for k := range pts[i] {
				pts[i][k] = 3 * rng.NormFloat64()
			}
		}
		d2 := mat.NewSymDense(tt.n, nil)
		for i := range pts {
			for j := i + 1; j < tt.n; j++ {
				d2.SetSym(i, j, cluster.SqDist(pts[i], pts[j]))
			}
		}
		x, err := classicalMDS(d2, tt.d+5)
		if err != nil {
			t.Fatal(err)
		}
		if len(x[0]) > tt.d {
			t.Errorf("n=%d d=%d: got %d dimensions, want ≤ %d", tt.n, tt.d, len(x[0]), tt.d)
		}
		for i := range pts {
			for j := range pts {
				want := math.Sqrt(cluster.SqDist(pts[i], pts[j]))
				if got := math.Sqrt(cluster.SqDist(x[i], x[j])); math.Abs(got-want) > 1e-8*(1+want) {
					t.Fatalf("n=%d d=%d: distance %d-%d got %v, want %v", tt.n, tt.d, i, j, got, want)
				}
			}
		}
	}
}

// TestContextMap draws Figure 7 for a demo document holding a reserved OOV tag.
// Independent check: the positives' distances before t-SNE equal those of the
// CE rows EmbedDocument computes for the same document's in-vocabulary tags.
func TestContextMap(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	_, m, err := ts.model(t.Context(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := corpus.Demo(corpus.DemoSeed)
	var doc *corpus.Document
	for _, i := range corpus.DemoSplit(c).OOV {
		if ids, oov := m.Vocabulary().Encode(c.Docs[i]); len(oov) > 0 && len(ids) >= 2 {
			doc = &c.Docs[i]
			break
		}
	}
	if doc == nil {
		t.Fatal("no demo OOV document with two in-vocabulary tags")
	}
	ids, oov := m.Vocabulary().Encode(*doc)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	rec := ts.doJSON(http.MethodGet, "/api/models/"+modelID+"/context-map?doc="+doc.ID+"&variant=ce", "")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	md := decode[MapData](t, rec)
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
	wantNeg := min(v-len(ids), maxNegatives)
	if count["positive"] != len(ids) || count["negative"] != wantNeg || count["oov"] != 1 || count["oov-avg"] != 1 || md.Term != oov[0] {
		t.Errorf("got %v for term %q, want %d positive, %d negative, 1 oov, 1 oov-avg for %q", count, md.Term, len(ids), wantNeg, oov[0])
	}

	// The MDS input of the positives against EmbedDocument's CE rows.
	rows := make([]float64, len(ids)*v)
	m.EvalModel(ce.VariantCE).Distances(ids, ids, nil, rows)
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
	train := corpus.DemoSplit(c).Train[0]
	if _, o := m.Vocabulary().Encode(c.Docs[train]); len(o) == 0 {
		wantError(t, ts.doJSON(http.MethodGet, base+"?doc="+c.Docs[train].ID+"&corpus="+corpusID, ""), 422, "no out-of-vocabulary")
	}
}

// TestMapJSONDocsOnce: a document's tags appear once in a map's JSON however
// many of its terms are points, and decoding restores every point's tags.
func TestMapJSONDocsOnce(t *testing.T) {
	tags := []string{"rock", "guitar", "loud", "a-long-tag-that-shows-up"}
	md := MapData{Term: "rock", Variant: "ce", KL: 0.5}
	for i, term := range tags {
		md.Points = append(md.Points, MapPoint{X: float64(i), Term: term, DocID: "d1", Corpus: "songs", Kind: "accompany", Tags: tags})
	}
	// The same id in another corpus is another document.
	md.Points = append(md.Points, MapPoint{Term: "jazz", DocID: "d1", Corpus: "other", Tags: []string{"jazz"}})
	b, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"loud","a-long-tag-that-shows-up"`); n != 1 {
		t.Errorf("the document's tag list appears %d times in %s", n, b)
	}
	var back MapData
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, md) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, md)
	}
	if err := json.Unmarshal([]byte(`{"points":[{"doc":3}],"docs":[]}`), &back); err == nil {
		t.Error("a point naming a missing document was accepted")
	}
}
