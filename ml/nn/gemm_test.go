package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/cputime"
	"golang.org/x/sys/cpu"
)

// asmKernels lists the assembly GEMM kernels this CPU can run, as values of
// useAVX512.
func asmKernels() []bool {
	if !useAsm {
		return nil
	}
	ks := []bool{false}
	if cpu.X86.HasAVX512F {
		ks = append(ks, true)
	}
	return ks
}

// TestKernelGemmSameBits checks that the AVX2 and the AVX-512 kernels give
// the same bits, on shapes around their tiles and over several depth blocks:
// a model trained on one kind of machine is then the one trained on the other.
func TestKernelGemmSameBits(t *testing.T) {
	if len(asmKernels()) < 2 {
		t.Skip("this CPU runs one assembly kernel only")
	}
	defer func(v bool) { useAVX512 = v }(useAVX512)
	rng := rand.New(rand.NewPCG(23, 24))
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = rng.NormFloat64() * math.Exp(rng.NormFloat64())
		}
		return s
	}
	for _, sh := range [][3]int{{1, 1, 1}, {5, 9, 7}, {9, 17, 129}, {13, 2, 257}, {50, 100, 300}, {3, 10, 600}, {33, 530, 200}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := fill(m*k), fill(n*k)
		at, bn := fill(k*m), fill(k*n)
		for _, acc := range []bool{false, true} {
			c0 := fill(m * n)
			var out [2][]float64
			for i, avx512 := range []bool{false, true} {
				useAVX512 = avx512
				c := slices.Clone(c0)
				gemmNT(m, n, k, a, k, b, k, c, n, acc, nil)
				c2 := slices.Clone(c0)
				gemmNN(m, n, k, a, k, bn, n, c2, n, acc, nil)
				c3 := slices.Clone(c0)
				gemmTN(m, n, k, at, m, bn, n, c3, n, acc, nil)
				out[i] = append(append(c, c2...), c3...)
			}
			for i := range out[0] {
				if math.Float64bits(out[0][i]) != math.Float64bits(out[1][i]) {
					t.Fatalf("%v acc=%v: entry %d is %v with AVX2, %v with AVX-512", sh, acc, i, out[0][i], out[1][i])
				}
			}
		}
	}
}

// TestGemmAsmMatchesGo compares the assembly kernels (each one the CPU has) with the
// pure-Go reference kernels on shapes with every edge case of the register tiles
// (6×8 and 8×16), of the k-blocking (128, 256) and of the m and n blocking (240,
// 512), with leading dimensions larger than the rows.
func TestGemmAsmMatchesGo(t *testing.T) {
	kernels := asmKernels()
	if len(kernels) == 0 {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(v bool) { useAVX512 = v }(useAVX512)
	rng := rand.New(rand.NewPCG(21, 22))
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 2*rng.Float64() - 1
		}
		return s
	}
	shapes := [][3]int{{1, 1, 1}, {4, 8, 3}, {8, 16, 5}, {5, 9, 7}, {50, 100, 155}, {3, 10, 600},
		{50, 136, 10}, {13, 2, 257}, {7, 17, 0}, {9, 17, 129}, {300, 20, 40}, {20, 530, 30}, {50, 2000, 10}, {2000, 10, 50}}
	for _, avx512 := range kernels {
		useAVX512 = avx512
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			for _, acc := range []bool{false, true} {
				const pad = 3 // extra columns of every leading dimension
				a := fill((max(m, k)+1)*(max(m, k)+pad) + 3)
				b := fill((max(n, k)+1)*(max(n, k)+pad) + 5)
				ldc := n + pad
				c0 := fill((m+8)*ldc + 2) // rows past m must stay untouched
				type kernel struct {
					name   string
					asm, g func(c []float64)
				}
				ks := []kernel{
					{"NT",
						func(c []float64) { gemmNT(m, n, k, a, k+pad, b, k+pad, c, ldc, acc, nil) },
						func(c []float64) { gemmNTGo(m, n, k, a, k+pad, b, k+pad, c, ldc, acc) }},
					{"NN",
						func(c []float64) { gemmNN(m, n, k, a, k+pad, b, n+pad, c, ldc, acc, nil) },
						func(c []float64) { gemmNNGo(m, n, k, a, k+pad, b, n+pad, c, ldc, acc) }},
					{"TN",
						func(c []float64) { gemmTN(m, n, k, a, m+pad, b, n+pad, c, ldc, acc, nil) },
						func(c []float64) { gemmTNGo(m, n, k, a, m+pad, b, n+pad, c, ldc, acc) }},
				}
				for _, kn := range ks {
					got := append([]float64(nil), c0...)
					want := append([]float64(nil), c0...)
					kn.asm(got)
					kn.g(want)
					for i := range got {
						if math.Abs(got[i]-want[i]) > 1e-12*(1+float64(k)) {
							t.Fatalf("avx512=%v %s %v acc=%v: c[%d] = %v, want %v", avx512, kn.name, sh, acc, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestKernelGemmFusedChain checks every assembly kernel the CPU has against the
// sum the package specifies, bit for bit: an element of C is a chain of fused
// multiply-adds (math.FMA) from zero over each depth block of kc steps, added to
// C block after block. It runs on any machine with the kernels, so a change of
// the AVX2 tile is checked even where TestKernelGemmSameBits has no AVX-512 to
// compare with.
func TestKernelGemmFusedChain(t *testing.T) {
	kernels := asmKernels()
	if len(kernels) == 0 {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(v bool) { useAVX512 = v }(useAVX512)
	rng := rand.New(rand.NewPCG(25, 26))
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = rng.NormFloat64() * math.Exp(rng.NormFloat64())
		}
		return s
	}
	// want is C (m×n, row-major) after adding (or storing) A·B with A(i,p) = at(i,p)
	// and B(p,j) = bt(p,j), summed the specified way.
	want := func(m, n, k int, at, bt func(i, p int) float64, c []float64, acc bool) []float64 {
		out := slices.Clone(c)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				v := out[i*n+j]
				for p0 := 0; p0 < k; p0 += kc {
					var s float64
					for p := p0; p < min(k, p0+kc); p++ {
						s = math.FMA(at(i, p), bt(p, j), s)
					}
					if acc || p0 > 0 {
						v += s
					} else {
						v = s
					}
				}
				out[i*n+j] = v
			}
		}
		return out
	}
	shapes := [][3]int{{1, 1, 1}, {6, 8, 3}, {5, 9, 7}, {7, 17, 129}, {13, 2, 257}, {50, 100, 155}, {8, 24, 50}, {100, 50, 100}, {250, 20, 40}, {3, 530, 300}, {2, 16, 9}, {4, 16, 130}}
	for _, avx512 := range kernels {
		useAVX512 = avx512
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			a, b := fill(m*k), fill(n*k)
			at, bn := fill(k*m), fill(k*n)
			for _, acc := range []bool{false, true} {
				c0 := fill(m * n)
				check := func(name string, got, w []float64) {
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(w[i]) {
							t.Fatalf("avx512=%v %s %v acc=%v: c[%d] = %v, want %v", avx512, name, sh, acc, i, got[i], w[i])
						}
					}
				}
				c := slices.Clone(c0)
				gemmNT(m, n, k, a, k, b, k, c, n, acc, nil)
				check("NT", c, want(m, n, k, func(i, p int) float64 { return a[i*k+p] }, func(p, j int) float64 { return b[j*k+p] }, c0, acc))
				c = slices.Clone(c0)
				gemmNN(m, n, k, a, k, bn, n, c, n, acc, nil)
				check("NN", c, want(m, n, k, func(i, p int) float64 { return a[i*k+p] }, func(p, j int) float64 { return bn[p*n+j] }, c0, acc))
				c = slices.Clone(c0)
				gemmTN(m, n, k, at, m, bn, n, c, n, acc, nil)
				check("TN", c, want(m, n, k, func(i, p int) float64 { return at[p*m+i] }, func(p, j int) float64 { return bn[p*n+j] }, c0, acc))
			}
		}
	}
}

// BenchmarkGemm times the products of a training step at the dim2000 and MagTag
// sizes (one part of 50 rows), reporting multiply-adds per CPU-second.
func BenchmarkGemm(b *testing.B) {
	cases := []struct {
		name    string
		m, n, k int
		f       func(m, n, k int, a, bb, c []float64)
	}{
		{"NT_50x100x2000", 50, 100, 2000, func(m, n, k int, a, bb, c []float64) { gemmNT(m, n, k, a, k, bb, k, c, n, false, nil) }},
		{"TN_100x2000x50", 100, 2000, 50, func(m, n, k int, a, bb, c []float64) { gemmTN(m, n, k, a, m, bb, n, c, n, true, nil) }},
		{"NTpacked_50x100x2000", 50, 100, 2000, func(m, n, k int, a, bb, c []float64) {
			gemmAsmPacked(m, n, k, a, bb, c)
		}},
		{"NT_50x2000x10", 50, 2000, 10, func(m, n, k int, a, bb, c []float64) { gemmNT(m, n, k, a, k, bb, k, c, n, false, nil) }},
		{"NN_50x10x2000", 50, 10, 2000, func(m, n, k int, a, bb, c []float64) { gemmNN(m, n, k, a, k, bb, n, c, n, false, nil) }},
		{"TN_2000x10x50", 2000, 10, 50, func(m, n, k int, a, bb, c []float64) { gemmTN(m, n, k, a, m, bb, n, c, n, true, nil) }},
		{"NT_50x100x155", 50, 100, 155, func(m, n, k int, a, bb, c []float64) { gemmNT(m, n, k, a, k, bb, k, c, n, false, nil) }},
		{"TN_100x155x50", 100, 155, 50, func(m, n, k int, a, bb, c []float64) { gemmTN(m, n, k, a, m, bb, n, c, n, true, nil) }},
		{"NN_50x100x100", 50, 100, 100, func(m, n, k int, a, bb, c []float64) { gemmNN(m, n, k, a, k, bb, n, c, n, false, nil) }},
	}
	for _, cs := range cases {
		b.Run(cs.name, func(b *testing.B) {
			if !useAsm && strings.HasPrefix(cs.name, "NTpacked") {
				b.Skip("no assembly kernels")
			}
			rng := rand.New(rand.NewPCG(1, 2))
			a := randDense(max(cs.m, cs.k), max(cs.m, cs.k), 1, rng).RawMatrix().Data
			bb := randDense(max(cs.n, cs.k), max(cs.n, cs.k), 1, rng).RawMatrix().Data
			c := make([]float64, cs.m*cs.n)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Start()
			for i := 0; i < b.N; i++ {
				cs.f(cs.m, cs.n, cs.k, a, bb, c)
			}
			cpu.Rate(b, float64(b.N)*float64(cs.m*cs.n*cs.k)/1e9, "GMAC-per-cpu")
		})
	}
}

var benchPacked []float64

// gemmAsmPacked is C = A·Bᵀ with B packed once (as a Trainer does for its forward
// passes), timing the kernels without the packing of B.
func gemmAsmPacked(m, n, k int, a, b, c []float64) {
	if len(benchPacked) == 0 {
		benchPacked = packNT(nil, b, n, k)
	}
	gemmAsm(m, n, k, a, k, 1, nil, 0, 0, c, n, false, nil, benchPacked)
}
