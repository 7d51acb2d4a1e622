package baselines

import (
	"context"
	"testing"
)

func TestPCAPlanted(t *testing.T) {
	const per = 5
	docs := globalPlanted(2, 200, per)
	for _, dim := range []int{0, 2, 4} {
		m, err := FitPCA(context.Background(), docs, 2*per, PCAOptions{Dim: dim})
		if err != nil {
			t.Fatal(err)
		}
		if dim > 0 && m.Dim != dim {
			t.Errorf("Dim: got %d, want %d", m.Dim, dim)
		}
		checkGroupsSeparated(t, m, per)
	}
}

// TestLSADimRemembered checks that lsaDim's memo returns LSA's own dimension
// and tells different documents apart.
func TestLSADimRemembered(t *testing.T) {
	a := [][]int{{0, 1}, {1, 2}, {2, 3}, {0, 3}, {1, 3}}
	b := [][]int{{0, 1}, {0, 1}, {2, 3}, {2, 3}, {0, 1}}
	for _, docs := range [][][]int{a, b, a, b} {
		l, err := FitLSA(context.Background(), docs, 4, LSAOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		d, err := lsaDim(context.Background(), docs, 4, 0, 1)
		if err != nil || d != l.Dim {
			t.Fatalf("lsaDim = %d, %v; LSA's dimension %d", d, err, l.Dim)
		}
	}
	// A default FitLSA leaves its dimension for lsaDim; one with a fixed
	// dimension does not.
	c := [][]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 0}}
	lsaDims.mu.Lock()
	delete(lsaDims.m, lsaDimKey{docs: fingerprint(c), n: len(c), v: 5, seed: 9}) // a run before this one (-count)
	lsaDims.mu.Unlock()
	for _, o := range []LSAOptions{{Seed: 9, Dim: 1}, {Seed: 9}} {
		l, err := FitLSA(context.Background(), c, 5, o)
		if err != nil {
			t.Fatal(err)
		}
		key := lsaDimKey{docs: fingerprint(c), n: len(c), v: 5, seed: 9}
		lsaDims.mu.Lock()
		d, ok := lsaDims.m[key]
		lsaDims.mu.Unlock()
		if want := o.Dim == 0; ok != want || (ok && d != l.Dim) {
			t.Errorf("after FitLSA(%+v): memo holds %d, %v; want %v with %d", o, d, ok, want, l.Dim)
		}
	}
	if fingerprint(a) == fingerprint(b) || fingerprint([][]int{{0}, {1}}) == fingerprint([][]int{{0, 1}}) {
		t.Error("fingerprint does not tell documents apart")
	}
}
