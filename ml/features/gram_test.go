package features

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
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

// TestGramOperatorBlocks checks that Gram.MulTo by blocks of rows gives the
// bits of Aᵀ(A·x) computed in one piece, for blocks that divide the rows
// and blocks that do not, and above the size where the products run on
// several goroutines.
func TestGramOperatorBlocks(t *testing.T) {
	defer func(n int) { gramBlockElems = n }(gramBlockElems)
	rng := rand.New(rand.NewPCG(7, 3))
	for _, tc := range []struct{ r, c, k, density int }{{300, 40, 7, 5}, {3000, 600, 30, 20}} {
		a := &Sparse{R: tc.r, C: tc.c, Ptr: make([]int, tc.r+1)}
		for i := 0; i < tc.r; i++ {
			for j := 0; j < tc.c; j++ {
				if rng.IntN(100) < tc.density {
					a.Ind = append(a.Ind, j)
					a.Val = append(a.Val, rng.NormFloat64())
				}
			}
			a.Ptr[i+1] = len(a.Ind)
		}
		x := mat.NewDense(tc.c, tc.k, nil)
		for i := 0; i < tc.c; i++ {
			for j := 0; j < tc.k; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		tmp, want := mat.NewDense(tc.r, tc.k, nil), mat.NewDense(tc.c, tc.k, nil)
		a.MulTo(tmp, false, x)
		a.MulTo(want, true, tmp)
		for _, rows := range []int{tc.r, 13, 100, 1} {
			gramBlockElems = rows * tc.k
			got := mat.NewDense(tc.c, tc.k, nil)
			got.Set(0, 0, 1) // MulTo overwrites dst
			Gram{A: a}.MulTo(got, false, x)
			if !slices.Equal(got.RawMatrix().Data, want.RawMatrix().Data) {
				t.Errorf("%d×%d, k %d, blocks of %d rows: not the bits of one piece", tc.r, tc.c, tc.k, rows)
			}
		}
	}
}
