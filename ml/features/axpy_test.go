package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestKernelAxpyRound compares each kernel the processor runs with the Go
// loop bit for bit, for every length to 40 and values over many magnitudes (a
// fused multiply-add would differ in the last bit of many sums).
func TestKernelAxpyRound(t *testing.T) {
	kernels := axpyKernels()
	if len(kernels) == 0 {
		t.Skip("no assembly kernel")
	}
	for name, axpy := range kernels {
		t.Run(name, func(t *testing.T) { testAxpyRound(t, axpy) })
	}
}

func testAxpyRound(t *testing.T, axpyRound func(y, x []float64, a float64)) {
	rng := rand.New(rand.NewPCG(3, 4))
	val := func() float64 { return rng.NormFloat64() * math.Exp(4*rng.NormFloat64()) }
	for n := 0; n <= 40; n++ {
		for range 20 {
			y, x := make([]float64, n), make([]float64, n+3)
			for i := range y {
				y[i] = val()
			}
			for i := range x {
				x[i] = val()
			}
			a := val()
			want := append([]float64(nil), y...)
			for c := range want {
				want[c] += float64(a * x[c])
			}
			axpyRound(y, x, a)
			for c := range y {
				if math.Float64bits(y[c]) != math.Float64bits(want[c]) {
					t.Fatalf("n %d: y[%d] = %v, want %v", n, c, y[c], want[c])
				}
			}
		}
	}
}

// TestKernelSparseMul checks that Sparse's products are the Go loop's bits
// with and without the kernel.
func TestKernelSparseMul(t *testing.T) {
	if !useAxpy {
		t.Skip("no assembly kernel")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const r, c, k = 60, 45, 37
	var a Sparse
	a.R, a.C = r, c
	a.Ptr = []int{0}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.IntN(4) == 0 {
				a.Ind = append(a.Ind, j)
				a.Val = append(a.Val, rng.NormFloat64())
			}
		}
		a.Ptr = append(a.Ptr, len(a.Ind))
	}
	defer func() { useAxpy = true }()
	for _, trans := range []bool{false, true} {
		in, out := c, r
		if trans {
			in, out = r, c
		}
		x := normalDense(rng, in, k)
		var res [2]*mat.Dense
		for i, on := range []bool{false, true} {
			useAxpy = on
			res[i] = mat.NewDense(out, k, nil)
			a.MulTo(res[i], trans, x)
		}
		g, w := res[1].RawMatrix().Data, res[0].RawMatrix().Data
		for i := range g {
			if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
				t.Fatalf("trans=%v: element %d is %v, Go loop %v", trans, i, g[i], w[i])
			}
		}
	}
}

// BenchmarkSparseMulTo times the sparse products of the randomized PCAs (A·x
// and Aᵀ·x, a 20,000 × 20,000 matrix with 2 million non-zeros times 210
// columns) with the processor's kernel and with the Go loop.
func BenchmarkSparseMulTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n, nnz, k = 20000, 2000000, 210
	a := &Sparse{R: n, C: n, Ptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j += 1 + rng.IntN(2*n/(nnz/n)) {
			a.Ind = append(a.Ind, j)
			a.Val = append(a.Val, rng.NormFloat64())
		}
		a.Ptr[i+1] = len(a.Ind)
	}
	x, dst := normalDense(rng, n, k), mat.NewDense(n, k, nil)
	defer func(on bool) { useAxpy = on }(useAxpy)
	for _, kernel := range []bool{true, false} {
		if kernel && !useAxpy {
			continue
		}
		name := map[bool]string{true: "kernel", false: "go"}[kernel]
		for _, trans := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/trans=%v", name, trans), func(b *testing.B) {
				useAxpy = kernel
				for range b.N {
					a.MulTo(dst, trans, x)
				}
			})
		}
	}
}
