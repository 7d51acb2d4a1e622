package features

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// serialGram is the one-pass serial AᵀA that gramSparse computed before it
// ran in two passes on several goroutines: the reference its bits must equal.
func serialGram(a *Sparse) *Sparse {
	at := a.Transpose()
	g := &Sparse{R: a.C, C: a.C, Ptr: make([]int, a.C+1)}
	acc := make([]float64, a.C)
	mark := make([]bool, a.C)
	var touched []int
	for i := 0; i < a.C; i++ {
		touched = touched[:0]
		rows, vi := at.Row(i)
		for p, d := range rows {
			ind, val := a.Row(d)
			for q, j := range ind {
				if !mark[j] {
					mark[j] = true
					touched = append(touched, j)
				}
				acc[j] += vi[p] * val[q]
			}
		}
		slices.Sort(touched)
		for _, j := range touched {
			g.Ind = append(g.Ind, j)
			g.Val = append(g.Val, acc[j])
			acc[j], mark[j] = 0, false
		}
		g.Ptr[i+1] = len(g.Ind)
	}
	return g
}

// TestGramSparseBits checks that GramSparse gives the serial loop's bits
// whatever GOMAXPROCS, on documents of skewed lengths over more rows than one
// block of gramRows, with idf weights and smoothed weights.
func TestGramSparseBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	const v = 3 * gramBlock / 2
	docs := make([][]int, 2000)
	for d := range docs {
		n := 1 + rng.IntN(4)
		if d%100 == 0 {
			n = 1 + rng.IntN(v)
		}
		for range n {
			docs[d] = append(docs[d], int(float64(v)*rng.Float64()*rng.Float64()))
		}
	}
	_, idf, c := TermMatrix(docs, v)
	inputs := []*Sparse{DocTerm(docs, v, nil), DocTerm(docs, v, idf), Smooth(docs, v, idf, TopAssociates(c, 1), 1, 0.5)}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for k, a := range inputs {
		want := serialGram(a)
		for _, procs := range []int{1, 2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			got := GramSparse(a)
			if !slices.Equal(got.Ptr, want.Ptr) || !slices.Equal(got.Ind, want.Ind) || !slices.Equal(got.Val, want.Val) {
				t.Errorf("input %d, GOMAXPROCS %d: AᵀA differs from the serial loop's", k, procs)
			}
		}
	}
}
