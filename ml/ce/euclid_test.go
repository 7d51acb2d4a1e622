package ce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/taglens/taglens/ml/nn"
)

// TestKernelEuclidRows checks euclidRows (16 terms at a time in the AVX2
// kernel where there is one) against euclid bit for bit, with and without a
// partial block of 16 and for several dimensions.
func TestKernelEuclidRows(t *testing.T) {
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

// TestKernelTanhSum checks that embedPre gives the same bits with the AVX2 kernel
// of layer 1's addition theorem as with the Go loop, on pre-activations large
// enough that many entries take the direct tanh (denominator below 0.5).
func TestKernelTanhSum(t *testing.T) {
	if !useTanhSum {
		t.Skip("no AVX2 kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	sizes := []int{9, 12, 8, 5, 30}
	params := make([]float64, nn.NewLayout(sizes).N)
	for i := range params {
		params[i] = rng.NormFloat64() * 1.5
	}
	termX := make([][]float64, 30)
	for i := range termX {
		termX[i] = make([]float64, 4)
		for j := range termX[i] {
			termX[i][j] = rng.NormFloat64() * 2
		}
	}
	e := newEmbedder(sizes, params, termX, 5, 0)
	ctx := make([]float64, 5)
	direct := 0
	for trial := range 20 {
		for j := range ctx {
			ctx[j] = rng.NormFloat64() * 2
		}
		got, want := make([]float64, 30*5), make([]float64, 30*5)
		e.embedVocab(got, ctx)
		useTanhSum = false
		e.embedVocab(want, ctx)
		useTanhSum = true
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d: CE value %d = %v with the kernel, %v without", trial, i, got[i], want[i])
			}
		}
		cp := make([]float64, 12)
		e.ctxPreTo(cp, ctx)
		for r := range 30 {
			for j := range 12 {
				if 1+e.termTh[r*12+j]*math.Tanh(cp[j]) < 0.5 {
					direct++
				}
			}
		}
	}
	if direct == 0 {
		t.Fatal("no entry took the direct tanh: the test does not cover that branch")
	}
}

// TestEmbedVocabBlocks checks that embedding the whole vocabulary in blocks of
// embedBlock rows gives every term the bits it gets alone (embedTerms of one
// term), with and without the layer-1 kernel, across full and partial blocks.
func TestEmbedVocabBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	v := 2*embedBlock + 37
	sizes := []int{9, 12, 8, 5, v}
	params := make([]float64, nn.NewLayout(sizes).N)
	for i := range params {
		params[i] = rng.NormFloat64()
	}
	termX := make([][]float64, v)
	for i := range termX {
		termX[i] = make([]float64, 4)
		for j := range termX[i] {
			termX[i][j] = rng.NormFloat64() * 2
		}
	}
	e := newEmbedder(sizes, params, termX, 5, 0)
	ctx := []float64{0.7, -1.2, 0.1, 2.5, -0.4}
	d := e.ceDim()
	for _, kernel := range []bool{false, true} {
		if kernel && !useTanhSum {
			continue
		}
		saved := useTanhSum
		useTanhSum = kernel
		all := make([]float64, v*d)
		e.embedVocab(all, ctx)
		one := make([]float64, d)
		for term := range v {
			e.embedTerms(one, []int{term}, ctx)
			for k, g := range one {
				if math.Float64bits(g) != math.Float64bits(all[term*d+k]) {
					t.Fatalf("kernel %v: term %d, CE[%d] = %v in the vocabulary, %v alone", kernel, term, k, all[term*d+k], g)
				}
			}
		}
		useTanhSum = saved
	}
}
