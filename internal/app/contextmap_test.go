package app

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/internal/demotest"
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
		x, err := ClassicalMDS(d2, tt.d+5)
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

// TestContextMap draws Figure 7 for a demo document holding a reserved OOV
// tag and checks the kinds and counts of its points, then the three refusals
// of Check: a term that is not an OOV tag of the document (InputError), a
// document without an OOV tag and one without an in-vocabulary tag
// (MapError).
func TestContextMap(t *testing.T) {
	m, c, _ := demoModel(t)
	doc, ids, oov := demotest.OOVDocument(t, m.Vocabulary())
	var holding []corpus.Document
	for _, d := range c.Docs {
		if slices.Contains(d.Tags, oov[0]) {
			holding = append(holding, d)
		}
	}
	cm := &ContextMap{Model: m, Variant: "ce", Doc: doc, Corpus: c.Name, Holding: holding}
	pts, kl, err := cm.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cm.Term != oov[0] || math.IsNaN(kl) {
		t.Errorf("term %q, KL %v: want the first OOV tag %q and a number", cm.Term, kl, oov[0])
	}
	count := map[string]int{}
	for _, p := range pts {
		count[p.Kind]++
		if p.DocID != doc.ID || p.Corpus != c.Name || p.X != Round4(p.X) {
			t.Fatalf("point %+v", p)
		}
	}
	wantNeg := min(m.Vocabulary().Len()-len(ids), MaxNegatives)
	if count["positive"] != len(ids) || count["negative"] != wantNeg || count["oov"] != 1 || count["oov-avg"] != 1 {
		t.Errorf("kinds %v: want %d positive, %d negative, one oov and one oov-avg", count, len(ids), wantNeg)
	}

	var ie *InputError
	bad := &ContextMap{Model: m, Variant: "ce", Doc: doc, Term: "not-a-tag-of-it"}
	if err := bad.Check(); !errors.As(err, &ie) || ie.Field != "term" {
		t.Errorf("a term outside the document: %v, want an InputError of term", err)
	}
	var me *MapError
	inVocab := corpus.Document{ID: "iv", Tags: []string{m.Vocabulary().Term(0), m.Vocabulary().Term(1)}}
	if err := (&ContextMap{Model: m, Variant: "ce", Doc: inVocab}).Check(); !errors.As(err, &me) {
		t.Errorf("a document without OOV tags: %v, want a MapError", err)
	}
	onlyOOV := corpus.Document{ID: "oov", Tags: []string{"zz-unknown-1", "zz-unknown-2"}}
	if err := (&ContextMap{Model: m, Variant: "ce", Doc: onlyOOV}).Check(); !errors.As(err, &me) {
		t.Errorf("a document without in-vocabulary tags: %v, want a MapError", err)
	}
}
