package baselines

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCosineDistances ranks the whole vocabulary against the terms of one
// document, as extended priming and the InfoTheo / Skip-gram tuning do for every
// document: lastfm-hetrec's shape (7,793 training terms, LSA's 256 dimensions,
// 9 query terms) and mtg-jamendo's (161 terms, 119 dimensions, 5 queries).
// Every iteration uses a fresh TermVectors, so nothing comes from kept rows:
// "gonum" is gonum's matrix product, "lanes" cosineProduct (AVX2), which gives
// the same bits.
func BenchmarkCosineDistances(b *testing.B) {
	for _, c := range []struct {
		name    string
		v, d, q int
	}{{"V7793_D256_Q9", 7793, 256, 9}, {"V161_D119_Q5", 161, 119, 5}} {
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
		for _, lanes := range []bool{false, true} {
			if lanes && !useLanes {
				continue
			}
			name := c.name + "/gonum"
			if lanes {
				name = c.name + "/lanes"
			}
			b.Run(name, func(b *testing.B) {
				saved := useLanes
				useLanes = lanes
				defer func() { useLanes = saved }()
				for b.Loop() {
					tv.cosineDirect(dst, queries, tv.useProduct(len(queries)))
				}
			})
		}
	}
}

// BenchmarkCosineDistancesKept is an evaluation's view: 2,000 documents of 10
// terms drawn from a 7,000-term vocabulary (whats-cooking's size) at 256
// dimensions, each ranked by CosineDistancesTo on one TermVectors, whose kept
// rows are computed once per term: "lazy" as documents come, "prepared" all at
// once by PrepareQueries first, as eval.Evaluate does.
func BenchmarkCosineDistancesKept(b *testing.B) {
	const v, d, docs, n = 7000, 256, 2000, 10
	rng := rand.New(rand.NewPCG(3, 4))
	vec := make([]float64, v*d)
	for i := range vec {
		vec[i] = rng.NormFloat64()
	}
	queries := make([][]int, docs)
	var all []int
	for i := range queries {
		queries[i] = rng.Perm(v)[:n]
		all = append(all, queries[i]...)
	}
	dst := make([]float64, n*v)
	for _, prepare := range []bool{false, true} {
		name := "lazy"
		if prepare {
			name = "prepared"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				tv := NewTermVectors(v, d, vec)
				if prepare {
					tv.PrepareQueries(all)
				}
				for _, q := range queries {
					tv.CosineDistancesTo(dst, q)
				}
			}
		})
	}
}
