package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSPD returns an n×n symmetric positive definite matrix: XᵀX of a
// random 0/1 matrix of 2n rows plus ridge·I, the shape of EASE^R's G + λI.
func randomSPD(n int, ridge float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(2*n, n, nil)
	for i := 0; i < 2*n; i++ {
		for j := 0; j < n; j++ {
			if rng.IntN(4) == 0 {
				x.Set(i, j, 1)
			}
		}
	}
	var g mat.Dense
	g.Mul(x.T(), x)
	out := slices.Clone(g.RawMatrix().Data)
	for i := 0; i < n; i++ {
		out[i*n+i] += ridge
	}
	return out
}

// TestSPDInverseGonum checks the blocked inverse against gonum's Cholesky
// inverse (LAPACK's dpotrf and dpotri), for sizes below, at and across block
// boundaries, and checks A·A⁻¹ = I.
func TestSPDInverseGonum(t *testing.T) {
	for _, n := range []int{1, 2, 7, spdBlock - 1, spdBlock, spdBlock + 1, 2*spdBlock + 37, 3 * spdBlock} {
		a := randomSPD(n, 0.5, uint64(n))
		got := slices.Clone(a)
		ok, err := spdInverse(context.Background(), got, make([]float64, n*n), n)
		if err != nil || !ok {
			t.Fatalf("n=%d: ok %v err %v", n, ok, err)
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(n, slices.Clone(a))) {
			t.Fatalf("n=%d: gonum: not positive definite", n)
		}
		var want mat.SymDense
		if err := ch.InverseTo(&want); err != nil {
			t.Fatal(err)
		}
		scale := mat.Norm(&want, math.Inf(1))
		worst := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				worst = max(worst, math.Abs(got[i*n+j]-want.At(i, j))/scale)
			}
		}
		if worst > 1e-11 {
			t.Errorf("n=%d: largest difference from gonum %.3g of ‖A⁻¹‖∞", n, worst)
		}
		var prod mat.Dense
		prod.Mul(mat.NewDense(n, n, a), mat.NewDense(n, n, got))
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if d := math.Abs(prod.At(i, j) - want); d > 1e-9 {
					t.Fatalf("n=%d: (A·A⁻¹)[%d, %d] = %v", n, i, j, prod.At(i, j))
				}
			}
		}
	}
}

// TestSPDInverseAnyProcs checks that the inverse has the same bits with one
// processor as with four, and that a matrix that is not positive definite is
// refused.
func TestSPDInverseAnyProcs(t *testing.T) {
	n := 3*spdBlock + 11
	a := randomSPD(n, 1, 9)
	var runs [][]float64
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		got := slices.Clone(a)
		ok, err := spdInverse(context.Background(), got, make([]float64, n*n), n)
		runtime.GOMAXPROCS(old)
		if err != nil || !ok {
			t.Fatalf("procs %d: ok %v err %v", procs, ok, err)
		}
		runs = append(runs, got)
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Error("the inverse differs between 1 and 4 processors")
	}
	bad := slices.Clone(a)
	bad[5*n+5] = -1
	if ok, err := spdInverse(context.Background(), bad, make([]float64, n*n), n); ok || err != nil {
		t.Errorf("a matrix with a negative diagonal: ok %v err %v, want refused", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := spdInverse(ctx, slices.Clone(a), make([]float64, n*n), n); err == nil {
		t.Error("a cancelled context: no error")
	}
}

// BenchmarkSPDInverse times the blocked inverse at EASE^R's sizes (the suite's
// vocabularies reach 7,793 terms); the figure is its rate in multiply-adds
// (n³ for the three passes together).
func BenchmarkSPDInverse(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		a := randomSPD(n, 1, 1)
		work, scratch := make([]float64, n*n), make([]float64, n*n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(work, a)
				if ok, err := spdInverse(context.Background(), work, scratch, n); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
			b.ReportMetric(float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}
