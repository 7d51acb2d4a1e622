package baselines

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCosineDistances ranks the whole vocabulary against the terms of one
// document, as extended priming and the InfoTheo / Skip-gram tuning do for every
// document: lastfm-hetrec's shape (7,793 training terms, LSA's 256 dimensions,
// 9 query terms) and mtg-jamendo's (161 terms, 119 dimensions, 5 queries).
func BenchmarkCosineDistances(b *testing.B) {
	for _, c := range []struct {
		name    string
		v, d, q int
	}{{"V7793_D256_Q9", 7793, 256, 9}, {"V161_D119_Q5", 161, 119, 5}} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			vec := make([]float64, c.v*c.d)
			for i := range vec {
				vec[i] = rng.NormFloat64()
			}
			tv := NewTermVectors(c.v, c.d, vec)
			queries := make([]int, c.q)
			for i := range queries {
				queries[i] = rng.IntN(c.v)
			}
			dst := make([]float64, c.q*c.v)
			b.ResetTimer()
			for b.Loop() {
				tv.CosineDistancesTo(dst, queries)
			}
		})
	}
}
