package ce

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEuclidRowsKernel checks euclidRows (16 terms at a time in the AVX2
// kernel where there is one) against euclid bit for bit, with and without a
// partial block of 16 and for several dimensions.
func TestEuclidRowsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct{ v, d int }{{5, 3}, {16, 1}, {37, 10}, {100, 50}, {64, 7}} {
		ce := make([]float64, c.v*c.d)
		for i := range ce {
			ce[i] = rng.NormFloat64()
		}
		queries := []int{0, c.v - 1, c.v / 2, 0}
		got := make([]float64, len(queries)*c.v)
		euclidRows(got, ce, c.v, c.d, queries)
		for i, q := range queries {
			for j := 0; j < c.v; j++ {
				want := euclid(ce[q*c.d:(q+1)*c.d], ce[j*c.d:(j+1)*c.d])
				if g := got[i*c.v+j]; math.Float64bits(g) != math.Float64bits(want) {
					t.Fatalf("v=%d d=%d query %d term %d: %v, euclid %v", c.v, c.d, q, j, g, want)
				}
			}
		}
	}
}

// BenchmarkEuclidRows ranks a 7,000-term vocabulary of 50-dimensional
// embeddings (the CE space above 3,000 terms) against the 14 queries of one
// document, as the variants' Distances does: "loop" with euclid, "kernel"
// with the AVX2 kernel.
func BenchmarkEuclidRows(b *testing.B) {
	const v, d = 7000, 50
	rng := rand.New(rand.NewPCG(1, 2))
	ce := make([]float64, v*d)
	for i := range ce {
		ce[i] = rng.NormFloat64()
	}
	queries := rng.Perm(v)[:14]
	dst := make([]float64, len(queries)*v)
	for _, kernel := range []bool{false, true} {
		if kernel && !useEuclidGroups {
			continue
		}
		name := "loop"
		if kernel {
			name = "kernel"
		}
		b.Run(name, func(b *testing.B) {
			saved := useEuclidGroups
			useEuclidGroups = kernel
			defer func() { useEuclidGroups = saved }()
			for b.Loop() {
				euclidRows(dst, ce, v, d, queries)
			}
		})
	}
}
