package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmAsmMatchesGo compares the assembly kernels (when the CPU has them) with the
// pure-Go reference kernels on shapes with every edge case of the 4×8 blocking and of
// the k-blocking.
func TestGemmAsmMatchesGo(t *testing.T) {
	if !useAsm {
		t.Skip("no AVX2/FMA kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 2*rng.Float64() - 1
		}
		return s
	}
	shapes := [][3]int{{1, 1, 1}, {4, 8, 3}, {5, 9, 7}, {50, 100, 155}, {3, 10, 600}, {50, 136, 10}, {13, 2, 257}, {7, 17, 0}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, acc := range []bool{false, true} {
			a := fill(m*k + 3)
			b := fill(n*k + 5)
			c0 := fill(m*n + 2)
			type kernel struct {
				name   string
				lda    int
				ldb    int
				asm, g func(c []float64)
			}
			tmp := make([]float64, n*k)
			ks := []kernel{
				{"NT", k, k,
					func(c []float64) { gemmNT(m, n, k, a, k, b, k, c, n, acc, tmp) },
					func(c []float64) { gemmNTGo(m, n, k, a, k, b, k, c, n, acc) }},
				{"NN", k, n,
					func(c []float64) { gemmNN(m, n, k, a, k, b, n, c, n, acc) },
					func(c []float64) { gemmNNGo(m, n, k, a, k, b, n, c, n, acc) }},
				{"TN", m, n,
					func(c []float64) { gemmTN(m, n, k, a, m, b, n, c, n, acc) },
					func(c []float64) { gemmTNGo(m, n, k, a, m, b, n, c, n, acc) }},
			}
			for _, kn := range ks {
				got := append([]float64(nil), c0...)
				want := append([]float64(nil), c0...)
				kn.asm(got)
				kn.g(want)
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-12*(1+float64(k)) {
						t.Fatalf("%s %v acc=%v: c[%d] = %v, want %v", kn.name, sh, acc, i, got[i], want[i])
					}
				}
			}
		}
	}
}
