package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

var _ eval.Model = (*Random)(nil)

// TestRandomExpectation checks Random's mean P@K and MAP against the analytic
// expectation of a uniformly random ranking. The number of ground-truth terms in the
// top K of a uniform permutation of V terms, n of them relevant, is hypergeometric:
// mean K·n/V, variance K·(n/V)·(1−n/V)·(V−K)/(V−1) (e.g. Feller, vol. 1, §II.6).
// So E[P@K] = n/V and E[AP] = n/V per list.
//
// Priming: every one of the n queries of a document is scored against its n terms
// (the query included, not forced to the top), and Random gives a document's
// queries the same permutation, so P@K(X) = Σ_d n_d·P_d / Σ_d n_d with mean
// Σ n_d²/V / Σ n_d and variance Σ n_d²·Var(P_d) / (Σ n_d)².
// Extended: one list per document, mean Σ n_d/V / |X|, variance Σ Var(P_d) / |X|².
// The tolerance is 4 standard deviations; MAP uses the P@1 deviation, an upper bound
// (AP is a mean of the P@K, each of variance ≤ that of P@1).
func TestRandomExpectation(t *testing.T) {
	const v = 30
	rng := rand.New(rand.NewPCG(7, 11))
	docs := make([][]int, 3000)
	for i := range docs {
		docs[i] = rng.Perm(v)[:2+rng.IntN(7)]
	}
	hyperVar := func(n, k int) float64 { // Var of P@K = hits/K
		p := float64(n) / v
		return p * (1 - p) * float64(v-k) / float64(v-1) / float64(k)
	}
	m := NewRandom(v)
	for _, p := range []eval.Protocol{eval.Priming, eval.Extended} {
		got, err := eval.Evaluate(context.Background(), m, p, docs, &eval.Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= eval.MaxK; k++ {
			var mean, vr, w float64
			for _, d := range docs {
				n := len(d)
				wd := 1.0
				if p == eval.Priming {
					wd = float64(n)
				}
				mean += wd * float64(n) / v
				vr += wd * wd * hyperVar(n, k)
				w += wd
			}
			mean /= w
			sd := math.Sqrt(vr) / w
			if math.Abs(got.PAtK[k-1]-mean) > 4*sd {
				t.Errorf("%s P@%d: got %v, want %v ± %v", p, k, got.PAtK[k-1], mean, 4*sd)
			}
			if k == 1 && math.Abs(got.MAP-mean) > 4*sd {
				t.Errorf("%s MAP: got %v, want %v ± %v", p, got.MAP, mean, 4*sd)
			}
		}
	}
}

func TestRandomDeterministic(t *testing.T) {
	m := NewRandom(50)
	a := make([]float64, 3*50)
	b := make([]float64, 3*50)
	m.Distances(nil, []int{1, 2, 3}, rand.New(rand.NewPCG(1, 2)), a)
	m.Distances(nil, []int{1, 2, 3}, rand.New(rand.NewPCG(1, 2)), b)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed: dst[%d] got %v and %v", i, a[i], b[i])
		}
	}
}
