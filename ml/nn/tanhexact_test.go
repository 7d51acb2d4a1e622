package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTanhToMatchesMathTanh compares TanhTo with math.Tanh bit for bit over a
// wide range of magnitudes of both signs, dense grids around its two branch
// points (0.625 and MAXLOG/2 ≈ 44.01) and around the points where exp's
// rounding of t·log2e changes k, the special values, every tail length and in
// place.
func TestTanhToMatchesMathTanh(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	xs := logUniformArgs(rng, 200000)
	for range 300000 {
		xs = append(xs, 60*rng.Float64()-30)
	}
	const halfMaxLog = 0.5 * 8.8029691931113054295988e+01
	for _, c := range []float64{0.625, halfMaxLog} {
		for _, s := range []float64{1, -1} {
			x := c * s
			for range 2000 { // the floats just below and above c
				xs = append(xs, x)
				x = math.Nextafter(x, 0)
			}
			x = c * s
			for range 2000 {
				xs = append(xs, x)
				x = math.Nextafter(x, math.Inf(int(s)))
			}
		}
	}
	for k := 1; k <= 127; k++ { // 2z·log2e near k + 1/2: k's rounding flips
		z := (float64(k) + 0.5) / math.Log2E / 2
		for i := -50; i <= 50; i++ {
			xs = append(xs, z+float64(i)*1e-15*z, -z-float64(i)*1e-15*z)
		}
	}
	xs = append(xs, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		5e-324, -5e-324, 2.2250738585072014e-308, math.MaxFloat64, -math.MaxFloat64, 1e-8, 19.06, -19.06)
	check := func(name string, got []float64, in []float64) {
		t.Helper()
		for i, x := range in {
			want := math.Tanh(x)
			if math.IsNaN(want) {
				if !math.IsNaN(got[i]) {
					t.Fatalf("%s: tanh(%v) = %v, want NaN", name, x, got[i])
				}
				continue
			}
			if math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("%s: tanh(%v) = %v (%#016x), math.Tanh %v (%#016x)", name, x, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
			}
		}
	}
	dst := make([]float64, len(xs))
	TanhTo(dst, xs)
	check("all", dst, xs)
	for n := 0; n <= 9; n++ { // tails
		in := xs[1000 : 1000+n]
		out := make([]float64, n)
		TanhTo(out, in)
		check("tail", out, in)
	}
	in := append([]float64(nil), xs[:4099]...)
	TanhTo(in, in)
	check("in place", in, xs[:4099])
}

func BenchmarkTanhTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(43, 44))
	x := make([]float64, 4096)
	for i := range x {
		x[i] = 8*rng.Float64() - 4
	}
	dst := make([]float64, len(x))
	b.Run("TanhTo", func(b *testing.B) {
		for b.Loop() {
			TanhTo(dst, x)
		}
		b.ReportMetric(float64(b.N*len(x))/b.Elapsed().Seconds()/1e6, "M/s")
	})
	b.Run("math.Tanh", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Tanh(v)
			}
		}
		b.ReportMetric(float64(b.N*len(x))/b.Elapsed().Seconds()/1e6, "M/s")
	})
}
