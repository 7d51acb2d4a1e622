package app

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSpaceCompute(t *testing.T) {
	terms := []string{"a", "b", "c", "d", "e", "unused"}
	vecs := [][]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1}, {2, 0, 1}, {9, 9, 9}}
	counts := []int{3, 1, 2, 5, 1, 0}
	m, err := Space{Variant: "ce", Projection: ProjectPCA}.Compute(context.Background(), SpaceTerms{terms, vecs, counts}, SpaceTerms{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Terms, ",") != "a,b,c,d,e" || len(m.X) != 5 || len(m.Y) != 5 || m.Docs[3] != 5 {
		t.Fatalf("map %+v: want the five terms with documents, in order, with their counts", m)
	}
	// PCA centres the data: the projected coordinates sum to zero.
	var sx float64
	for _, x := range m.X {
		sx += x
	}
	if sx > 1e-3 || sx < -1e-3 {
		t.Errorf("PCA x coordinates sum to %v, want 0", sx)
	}
	if _, err := (Space{Projection: ProjectPCA}).Compute(context.Background(), SpaceTerms{terms[:3], vecs[:3], counts[:3]}, SpaceTerms{}, nil); err == nil ||
		!strings.Contains(err.Error(), "at least 4") {
		t.Errorf("three terms: error %v, want one saying a map needs at least 4", err)
	}
}

// TestSpaceComputeOOV checks that tags outside the vocabulary come after the
// vocabulary's terms (OOVFrom), that placing them leaves the vocabulary's
// points where they are without them, and that a tag whose centroid is a
// term's lands on that term (PCA: the same axes) or beside it (t-SNE's
// Transform).
func TestSpaceComputeOOV(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var vocab SpaceTerms
	for i := range 60 {
		v := make([]float64, 5)
		for j := range v {
			v[j] = rng.NormFloat64() + 6*float64((i%3)*(j%2))
		}
		vocab.Terms, vocab.Vecs, vocab.Counts = append(vocab.Terms, fmt.Sprint("t", i)), append(vocab.Vecs, v), append(vocab.Counts, 1+i%4)
	}
	oov := SpaceTerms{Terms: []string{"new-a", "new-b"}, Vecs: [][]float64{vocab.Vecs[7], vocab.Vecs[31]}, Counts: []int{2, 1}}
	for _, proj := range []string{ProjectPCA, ProjectTSNE} {
		s := Space{Variant: "ce", Projection: proj, Iterations: 300, Seed: 2}
		alone, err := s.Compute(context.Background(), vocab, SpaceTerms{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.Compute(context.Background(), vocab, oov, nil)
		if err != nil {
			t.Fatal(err)
		}
		if alone.OOVFrom != 0 || m.OOVFrom != 60 || len(m.Terms) != 62 || m.Terms[61] != "new-b" || m.Docs[60] != 2 || len(m.X) != 62 || len(m.Y) != 62 {
			t.Fatalf("%s: OOVFrom %d (alone %d), %d terms, last %q, docs %v", proj, m.OOVFrom, alone.OOVFrom, len(m.Terms), m.Terms[len(m.Terms)-1], m.Docs[60:])
		}
		if !slices.Equal(m.X[:60], alone.X) || !slices.Equal(m.Y[:60], alone.Y) {
			t.Errorf("%s: placing the OOV tags moved the vocabulary's points", proj)
		}
		// The spread of the map, to judge "beside".
		var spread float64
		for i := range 60 {
			spread = math.Max(spread, math.Hypot(m.X[i]-m.X[0], m.Y[i]-m.Y[0]))
		}
		for k, term := range []int{7, 31} {
			d := math.Hypot(m.X[60+k]-m.X[term], m.Y[60+k]-m.Y[term])
			if proj == ProjectPCA && d > 1e-3 || d > 0.1*spread {
				t.Errorf("%s: %s at distance %.4g from the term it copies (map spread %.3g)", proj, m.Terms[60+k], d, spread)
			}
		}
	}
}

// TestSpaceComputeOOVSmall checks that a map of fewer than 16 terms (below
// the placement's default perplexity of 5) still places the OOV tags.
func TestSpaceComputeOOVSmall(t *testing.T) {
	vocab := SpaceTerms{Terms: []string{"a", "b", "c", "d", "e"}, Counts: []int{1, 2, 1, 3, 1},
		Vecs: [][]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1}, {2, 0, 1}}}
	oov := SpaceTerms{Terms: []string{"x"}, Vecs: [][]float64{{1, 1, 0.9}}, Counts: []int{1}}
	m, err := Space{Projection: ProjectTSNE, Iterations: 250, Seed: 1}.Compute(context.Background(), vocab, oov, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.OOVFrom != 5 || len(m.X) != 6 || math.IsNaN(m.X[5]) || math.IsNaN(m.Y[5]) {
		t.Errorf("OOVFrom %d, %d points, the OOV tag at (%v, %v)", m.OOVFrom, len(m.X), m.X[5], m.Y[5])
	}
}
