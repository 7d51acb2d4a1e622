package baselines

import (
	"context"
	"math"
	"testing"
)

func TestLSAPlanted(t *testing.T) {
	const per = 5
	m, err := FitLSA(context.Background(), globalPlanted(1, 200, per), 2*per, LSAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.POVReached < DefaultPOV || m.Capped {
		t.Errorf("POV reached %v capped %v, want ≥ %v", m.POVReached, m.Capped, DefaultPOV)
	}
	checkGroupsSeparated(t, m, per)
}

// TestLSAPOVHand: with disjoint single-term documents the tf-idf matrix has
// orthogonal columns, so T = ΥᵀΥ is diagonal with eigenvalues df·idf²; three
// terms in 2, 2 and 1 of five documents give λ = 2·log²(5/3), 2·log²(5/3),
// log²(5/2) = 0.840, 0.522, 0.522 sorted: cumulative 0.446, 0.723, 1.000 →
// 3 components for 90 %, 2 for 70 %, 1 for 40 %.
func TestLSAPOVHand(t *testing.T) {
	docs := [][]int{{0}, {0}, {1}, {1}, {2}}
	a, b := math.Log(5.0/3), math.Log(5.0/2)
	total := 4*a*a + b*b
	for _, tc := range []struct {
		pov     float64
		wantDim int
		wantPOV float64
	}{
		{0.9, 3, 1},
		{0.7, 2, (b*b + 2*a*a) / total},
		{0.4, 1, b * b / total},
	} {
		m, err := FitLSA(context.Background(), docs, 3, LSAOptions{POV: tc.pov})
		if err != nil {
			t.Fatal(err)
		}
		if m.Dim != tc.wantDim || math.Abs(m.POVReached-tc.wantPOV) > 1e-12 {
			t.Errorf("POV %v: got dim %d (%v), want %d (%v)", tc.pov, m.Dim, m.POVReached, tc.wantDim, tc.wantPOV)
		}
	}
}
