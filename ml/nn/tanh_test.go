package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/taglens/taglens/internal/cputime"
)

// TestTanhAsmAccuracy compares the vectorised tanh of biasTanh with math.Tanh (the
// reference, itself within about an ulp) over a wide range of magnitudes, both signs,
// every tail length and the special values.
func TestTanhAsmAccuracy(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(v bool) { useAVX512 = v }(useAVX512)
	for _, avx512 := range asmKernels() {
		useAVX512 = avx512
		testTanhAccuracy(t)
	}
}

func testTanhAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	// log-uniform magnitudes from 1e-300 to 1e3, and a dense grid around the branch
	// point 0.625 and the saturation point ≈ 19.06.
	xs := logUniformArgs(rng, 200000)
	for range 100000 {
		xs = append(xs, 40*rng.Float64()-20)
	}
	for i := -1000; i <= 1000; i++ {
		xs = append(xs, 0.625+float64(i)*1e-6, -0.625+float64(i)*1e-6, 19.06+float64(i)*1e-3)
	}
	xs = append(xs, 0, math.Inf(1), math.Inf(-1), math.NaN(),
		5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 0.625, math.Nextafter(0.625, 0))
	const tol = 1e-15 // relative to |tanh(x)|
	maxRel := 0.0
	for width := 1; width <= 9; width++ {
		z := append([]float64(nil), xs[:len(xs)/width*width]...)
		b := make([]float64, width) // zero bias: z + 0 = z exactly
		biasTanh(z, width, b)
		for i, got := range z {
			x := xs[i] + b[0] // as biasTanh computes it (turns -0 into +0)
			want := math.Tanh(x)
			switch {
			case math.IsNaN(want):
				if !math.IsNaN(got) {
					t.Fatalf("tanh(%v) = %v, want NaN", x, got)
				}
				continue
			case want == 0:
				if got != 0 || math.Signbit(got) != math.Signbit(want) {
					t.Fatalf("tanh(%v) = %v, want %v", x, got, want)
				}
				continue
			}
			rel := math.Abs(got-want) / math.Abs(want)
			maxRel = max(maxRel, rel)
			if rel > tol {
				t.Fatalf("avx512=%v width %d: tanh(%v) = %v, want %v (relative error %.3g)", useAVX512, width, x, got, want, rel)
			}
		}
	}
	t.Logf("avx512=%v: max relative error %.3g", useAVX512, maxRel)
}

// TestBiasTanhAddsBias checks that the bias is added per column before the tanh.
func TestBiasTanhAddsBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, n := range []int{1, 3, 4, 7, 10, 136} {
		z := make([]float64, 5*n)
		b := make([]float64, n)
		for i := range z {
			z[i] = 6*rng.Float64() - 3
		}
		for j := range b {
			b[j] = 2*rng.Float64() - 1
		}
		want := make([]float64, len(z))
		for i := range z {
			want[i] = math.Tanh(z[i] + b[i%n])
		}
		biasTanh(z, n, b)
		for i := range z {
			if math.Abs(z[i]-want[i]) > 1e-15*math.Abs(want[i]) {
				t.Fatalf("n=%d: z[%d] = %v, want %v", n, i, z[i], want[i])
			}
		}
	}
}

// TestTanhAsmNegativeZero checks tanh(-0) = -0 (bias -0: -0 + -0 = -0).
func TestTanhAsmNegativeZero(t *testing.T) {
	nz := math.Copysign(0, -1)
	for _, n := range []int{1, 4} {
		z := []float64{nz, nz, nz, nz}[:n]
		b := []float64{nz, nz, nz, nz}[:n]
		biasTanh(z, n, b)
		for i, v := range z {
			if v != 0 || !math.Signbit(v) {
				t.Fatalf("n=%d: tanh(-0) = %v at %d, want -0", n, v, i)
			}
		}
	}
}

// TestKernelTanhAVX512MatchesAVX2 checks that the 8-lane tanh gives the same bits as the
// 4-lane one (same operations), so results do not depend on the CPU's vector width.
func TestKernelTanhAVX512MatchesAVX2(t *testing.T) {
	if len(asmKernels()) < 2 {
		t.Skip("no AVX-512 on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(35, 36))
	const n = 4096
	z := make([]float64, n)
	b := make([]float64, n)
	for i := range z {
		z[i] = math.Pow(10, -5+7*rng.Float64()) * float64(1-2*rng.IntN(2))
		b[i] = rng.Float64() - 0.5
	}
	z2 := append([]float64(nil), z...)
	tanhAddAVX2(&z[0], &b[0], n)
	tanhAddAVX512(&z2[0], &b[0], n)
	for i := range z {
		if math.Float64bits(z[i]) != math.Float64bits(z2[i]) {
			t.Fatalf("entry %d: AVX-512 %v, AVX2 %v", i, z2[i], z[i])
		}
	}
}

// BenchmarkBiasTanh times the output layer's tanh at dim2000 (50 rows × 2000).
func BenchmarkBiasTanh(b *testing.B) {
	rng := rand.New(rand.NewPCG(37, 38))
	const r, n = 50, 2000
	z0 := randDense(r, n, 3, rng).RawMatrix().Data
	bias := randDense(1, n, 1, rng).RawMatrix().Data
	z := make([]float64, r*n)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Start()
	for i := 0; i < b.N; i++ {
		copy(z, z0)
		biasTanh(z, n, bias)
	}
	if s := cpu.Seconds(); s > 0 {
		b.ReportMetric(s*1e9/float64(b.N*r*n), "cpu-ns/value")
	}
}

// logUniformArgs returns n arguments of both signs whose magnitudes are
// log-uniform from 1e-300 to 1e3.
func logUniformArgs(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.Pow(10, -300+303*rng.Float64())
		if rng.IntN(2) == 0 {
			xs[i] = -xs[i]
		}
	}
	return xs
}
