package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLogToMatchesMathLog checks logTo against math.Log bit for bit: random
// arguments of Eq. 5's range (1 ± ŷ), values at and around √2/2·2^e (where the
// algorithm changes branch), powers of two, subnormals, huge values, and the
// special values that must take math.Log's path (0, negatives, ±Inf, NaN).
func TestLogToMatchesMathLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x []float64
	for range 20000 {
		x = append(x, 1+(2*rng.Float64()-1)*(1-Eps))
	}
	for range 5000 {
		x = append(x, math.Exp(rng.NormFloat64()*50))
	}
	for e := -1074; e <= 1023; e += 7 {
		p := math.Ldexp(1, e)
		h := math.Ldexp(math.Sqrt2/2, e)
		x = append(x, p, math.Nextafter(p, 0), math.Nextafter(p, 2*p), h, math.Nextafter(h, 0), math.Nextafter(h, 2*h))
	}
	x = append(x, 1, 2, 0.5, math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-1022, 1-Eps, 1+Eps, Eps, 2-Eps)
	check := func(name string, x []float64) {
		t.Helper()
		got := make([]float64, len(x))
		logTo(got, x)
		for i, v := range x {
			want := math.Log(v)
			if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(got[i])) {
				t.Fatalf("%s: log(%v) = %v (%#x), math.Log gives %v (%#x)", name, v, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
			}
		}
	}
	for _, asm := range []bool{false, true} {
		if asm && !useAsm {
			continue
		}
		old := useAsm
		useAsm = asm
		check("all", x)
		for _, n := range []int{1, 3, 4, 5, 8, 13} { // tails
			check("prefix", x[:n])
		}
		check("with zero", append([]float64{0}, x[:40]...))
		check("specials", []float64{-1, math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), 3, 4})
		useAsm = old
	}
}

// BenchmarkLogTo measures one batch of 1,024 arguments of Eq. 5's range.
func BenchmarkLogTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 1024)
	for i := range x {
		x[i] = 1 + (2*rng.Float64()-1)*(1-Eps)
	}
	dst := make([]float64, len(x))
	b.Run("logTo", func(b *testing.B) {
		for b.Loop() {
			logTo(dst, x)
		}
	})
	b.Run("math.Log", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Log(v)
			}
		}
	})
}

// BenchmarkSGDStep measures one step with momentum and averaging (the ce
// defaults) on 364,000 parameters, the size of the whats-cooking network.
func BenchmarkSGDStep(b *testing.B) {
	n := 364000
	p, g := make([]float64, n), make([]float64, n)
	for i := range g {
		g[i] = float64(i%7) * 1e-3
	}
	s := &SGD{LearningRate: 0.05, Momentum: 0.9, Average: 0.999}
	for b.Loop() {
		s.Step(p, g)
	}
}

// TestForwardIntoMatchesForwardTo checks that ForwardInto writes exactly the values
// ForwardTo leaves in the workspace, and nothing past the rows it was given.
func TestForwardIntoMatchesForwardTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := NewMLP([]int{7, 13, 9, 5, 11}, rng)
	for _, rows := range []int{1, 3, 8, 17, 40} {
		x := mat.NewDense(rows, 7, nil)
		for i := range rows {
			for j := range 7 {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		for upTo := 1; upTo <= m.Layers(); upTo++ {
			ws := NewWorkspace(m.Sizes, rows)
			m.ForwardTo(ws, x, upTo)
			want := ws.Out(upTo)
			n := m.Sizes[upTo]
			buf := make([]float64, rows*n+16)
			for i := range buf {
				buf[i] = 12345
			}
			m.ForwardInto(NewWorkspace(m.Sizes, rows), x, upTo, buf[:rows*n:rows*n])
			for i := range rows {
				for j := range n {
					if g, w := buf[i*n+j], want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("rows %d layer %d: [%d,%d] = %v, ForwardTo gives %v", rows, upTo, i, j, g, w)
					}
				}
			}
			for _, v := range buf[rows*n:] {
				if v != 12345 {
					t.Fatalf("rows %d layer %d: ForwardInto wrote past its destination", rows, upTo)
				}
			}
		}
	}
}

// TestKernelUsePackedSameBits checks that forward passes reading weights packed once
// (MLP.Pack, Workspace.UsePacked) give the bits of packing on every call, for
// both kernels and layers deeper than a depth block.
func TestKernelUsePackedSameBits(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this machine")
	}
	for _, avx512 := range asmKernels() {
		saved := useAVX512
		useAVX512 = avx512
		rng := rand.New(rand.NewPCG(5, 6))
		m := NewMLP([]int{300, 100, 37, 50}, rng)
		x := mat.NewDense(53, 300, nil)
		for i := range 53 {
			for j := range 300 {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		plain := NewWorkspace(m.Sizes, 53)
		m.ForwardTo(plain, x, m.Layers())
		ws := NewWorkspace(m.Sizes, 53)
		ws.UsePacked(m.Pack())
		m.ForwardTo(ws, x, m.Layers())
		for h := 1; h <= m.Layers(); h++ {
			a, b := plain.Out(h), ws.Out(h)
			r, c := a.Dims()
			for i := range r {
				for j := range c {
					if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
						t.Fatalf("AVX-512 %v: layer %d [%d,%d]: %v packed once, %v per call", avx512, h, i, j, b.At(i, j), a.At(i, j))
					}
				}
			}
		}
		useAVX512 = saved
	}
}

// TestKernelBiasTanhBlocksSameBits checks that biasTanh gives a matrix whose width is
// not a multiple of 4 the bits it gives each row alone (blocks of 8 rows run as
// one flat vector), for both kernels.
func TestKernelBiasTanhBlocksSameBits(t *testing.T) {
	defer func(v bool) { useAVX512 = v }(useAVX512)
	for _, avx512 := range append(asmKernels(), false) {
		useAVX512 = avx512 && useAsm
		rng := rand.New(rand.NewPCG(11, 12))
		for _, n := range []int{1, 3, 5, 6, 7, 13, 102, 1001} {
			for _, rows := range []int{7, 8, 19, 50} {
				z := make([]float64, rows*n)
				b := make([]float64, n)
				for i := range z {
					z[i] = 8*rng.Float64() - 4
				}
				for j := range b {
					b[j] = rng.Float64() - 0.5
				}
				alone := slices.Clone(z)
				for r := range rows {
					biasTanh(alone[r*n:(r+1)*n], n, b)
				}
				biasTanh(z, n, b)
				for i := range z {
					if math.Float64bits(z[i]) != math.Float64bits(alone[i]) {
						t.Fatalf("AVX-512 %v, width %d, %d rows: entry %d = %v, %v row by row", avx512, n, rows, i, z[i], alone[i])
					}
				}
			}
		}
	}
}
