package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// vecValue draws values of every magnitude, zeros of both signs and exact
// zeros, for the vector kernels' bit-for-bit tests.
func vecValue(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return rng.NormFloat64() * 1e-300
	}
	return rng.NormFloat64() * math.Exp(rng.NormFloat64()*5)
}

func vecValues(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = vecValue(rng)
	}
	return v
}

// goAndAsm returns f applied to a copy of y by the Go loops (useAsm false)
// and to another by the assembly ones (useAsm true).
func goAndAsm(y []float64, f func(y []float64)) (goOut, asmOut []float64) {
	goOut, asmOut = slices.Clone(y), slices.Clone(y)
	useAsm = false
	f(goOut)
	useAsm = true
	f(asmOut)
	return goOut, asmOut
}

// sameBits returns the first index where a and b differ in their bits, or −1.
func sameBits(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestKernelColSumsAddSameBits checks that colSumsAdd gives the Go loop's bits
// with the AVX2 loop, for widths around its 4- and 16-column blocks.
func TestKernelColSumsAddSameBits(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(v bool) { useAsm = v }(useAsm)
	rng := rand.New(rand.NewPCG(91, 92))
	for _, n := range []int{1, 3, 4, 5, 15, 16, 17, 20, 33, 100, 1964} {
		for _, rows := range []int{0, 1, 2, 7, 50} {
			d, dst := vecValues(rng, rows*n), vecValues(rng, n)
			want, got := goAndAsm(dst, func(y []float64) { colSumsAdd(y, d, n) })
			if i := sameBits(want, got); i >= 0 {
				t.Fatalf("width %d, %d rows: column %d is %v, %v in Go", n, rows, i, got[i], want[i])
			}
		}
	}
}

// TestKernelAxpySameBits checks that axpyUnitary gives the Go loop's bits with
// the AVX2 loop, for lengths around its 4- and 8-element steps.
func TestKernelAxpySameBits(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(v bool) { useAsm = v }(useAsm)
	rng := rand.New(rand.NewPCG(93, 94))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 12, 13, 1001} {
		for _, a := range []float64{1, -0.05, 3.7e-5} {
			x, y := vecValues(rng, n), vecValues(rng, n)
			want, got := goAndAsm(y, func(y []float64) { axpyUnitary(a, x, y) })
			if i := sameBits(want, got); i >= 0 {
				t.Fatalf("n=%d, a=%v: element %d is %v, %v in Go", n, a, i, got[i], want[i])
			}
		}
	}
}

// TestKernelTanhBackSameBits checks that tanhBack gives the Go loop's bits with
// the AVX2 loop, with one gradient or two, for lengths around its 4-element step.
func TestKernelTanhBackSameBits(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(v bool) { useAsm = v }(useAsm)
	rng := rand.New(rand.NewPCG(95, 96))
	for _, n := range []int{1, 3, 4, 5, 8, 11, 100, 1003} {
		z := vecValues(rng, n)
		for i := range z {
			z[i] = math.Tanh(z[i])
		}
		gin, gprop := vecValues(rng, n), vecValues(rng, n)
		for _, c := range []struct {
			name     string
			gin, gpr []float64
		}{{"both", gin, gprop}, {"gin", gin, nil}, {"gprop", nil, gprop}} {
			want, got := goAndAsm(vecValues(rng, n), func(d []float64) { tanhBack(d, z, c.gin, c.gpr) })
			if i := sameBits(want, got); i >= 0 {
				t.Fatalf("n=%d, %s: element %d is %v, %v in Go", n, c.name, i, got[i], want[i])
			}
		}
	}
}
