package baselines

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// globalPlanted draws n training documents over two disjoint groups of `per`
// co-occurring terms (terms 0..per-1 and per..2per-1): each document takes 2..4
// distinct terms of one group, chosen uniformly.
func globalPlanted(seed uint64, n, per int) [][]int {
	rng := rand.New(rand.NewPCG(seed, 99))
	docs := make([][]int, n)
	for d := range docs {
		g := rng.IntN(2)
		for _, i := range rng.Perm(per)[:2+rng.IntN(3)] {
			docs[d] = append(docs[d], g*per+i)
		}
	}
	return docs
}

// checkGroupsSeparated asserts that for every query term, every other term of its
// group is closer than every term of the other group (planted ground truth).
func checkGroupsSeparated(t *testing.T, m eval.Model, per int) {
	t.Helper()
	v := m.VocabSize()
	if v != 2*per {
		t.Fatalf("VocabSize: got %d, want %d", v, 2*per)
	}
	queries := make([]int, v)
	for i := range queries {
		queries[i] = i
	}
	dst := make([]float64, v*v)
	m.Distances(nil, queries, rand.New(rand.NewPCG(1, 1)), dst)
	for q := 0; q < v; q++ {
		row := dst[q*v : (q+1)*v]
		worstSame, bestOther := math.Inf(-1), math.Inf(1)
		for j, d := range row {
			if math.IsNaN(d) {
				t.Fatalf("%s: distance(%d, %d) is NaN", m.Name(), q, j)
			}
			switch {
			case j == q:
			case j/per == q/per:
				worstSame = max(worstSame, d)
			default:
				bestOther = min(bestOther, d)
			}
		}
		if !(worstSame < bestOther) {
			t.Errorf("%s: query %d: farthest same-group distance %v, nearest other-group %v, want smaller", m.Name(), q, worstSame, bestOther)
		}
	}
}

func TestTermVectorsCosine(t *testing.T) {
	// Vectors chosen so the cosines are known: e0·e1 = 0, (1,1)/√2 at 45°.
	tv := NewTermVectors(4, 2, []float64{3, 0, 0, 2, 1, 1, 0, 0})
	dst := make([]float64, 2*4)
	tv.CosineDistancesTo(dst, []int{0, 3})
	want := []float64{0, 1, 1 - 1/math.Sqrt2, 1, 1, 1, 1, 1}
	for i := range want {
		if math.Abs(dst[i]-want[i]) > 1e-12 {
			t.Errorf("dst[%d]: got %v, want %v", i, dst[i], want[i])
		}
	}
}
