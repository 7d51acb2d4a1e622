package baselines

import (
	"context"
	"errors"
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

// TestFitLSAShared checks that a fit with the default options waits for one
// already running on the same documents and seed (internal/flight gives it
// that fit's model): with its context already ended it returns the context's
// error, where a fit of its own on five terms (the exact path, which does not
// look at the context) would return a model. A fit with other options runs
// on its own.
func TestFitLSAShared(t *testing.T) {
	train := [][]int{{0, 1}, {1, 2}, {0, 2, 3}, {3, 4}, {2, 4}}
	key := lsaDimKey{docs: fingerprint(train), n: len(train), v: 5, seed: 9}
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { // a fit under way, as another baseline's
		defer close(done)
		lsaFits.Do(context.Background(), key, func() (*LSA, error) {
			close(started)
			<-release
			return &LSA{Dim: 77}, nil
		})
	}()
	<-started
	defer func() { close(release); <-done }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, err := FitLSA(ctx, train, 5, LSAOptions{Seed: 9}); !errors.Is(err, context.Canceled) {
		t.Errorf("FitLSA with the default options: %v, %v: want it to wait for the running fit", m, err)
	}
	if own, err := FitLSA(context.Background(), train, 5, LSAOptions{Seed: 9, Dim: 2}); err != nil || own.Dim != 2 {
		t.Errorf("FitLSA with Dim 2: %v, %v: want a fit of its own", own, err)
	}
}
