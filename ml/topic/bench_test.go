package topic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

func countTokens(docs [][]int) int {
	n := 0
	for _, d := range docs {
		n += len(d)
	}
	return n
}

// BenchmarkFitLDA fits LDA on real training documents (skipped when
// ../shared/data is absent) and reports Gibbs token updates per second.
func BenchmarkFitLDA(b *testing.B) {
	for _, bc := range []struct {
		corpus string
		split  bool
		k      int
	}{
		{"mtg-jamendo", true, 20},
		{"lastfm-hetrec", false, 50},
	} {
		b.Run(fmt.Sprintf("%s/K=%d/iter=50", bc.corpus, bc.k), func(b *testing.B) {
			train, _, v := loadShared(b, bc.corpus, bc.split)
			n := countTokens(train)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, err := FitLDA(context.Background(), train, v, LDAConfig{K: bc.k, Iterations: 50, BurnIn: 40},
					rand.New(rand.NewPCG(1, 2)), nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*50*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkInferTo folds in the mtg-jamendo test documents one by one.
func BenchmarkInferTo(b *testing.B) {
	train, test, v := loadShared(b, "mtg-jamendo", true)
	m, err := FitLDA(context.Background(), train, v, LDAConfig{K: 20, Iterations: 30, BurnIn: 20},
		rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, m.K)
	for _, mode := range []string{"gibbs", "vb"} {
		b.Run("mtg-jamendo/K=20/"+mode, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d := test[i%len(test)]
				if mode == "gibbs" {
					m.InferTo(theta, d, rng)
				} else {
					m.InferVBTo(theta, d)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkTermKL times Eq. 1 from one query to a 7,000-term vocabulary with
// 50 topics (whats-cooking's size), as the LDA and PLSA baselines compute it
// for every query of every document: "loop" is TermKLTo, "table" KLTable's
// (the AVX2 kernel where there is one; same values).
func BenchmarkTermKL(b *testing.B) {
	p := planted{k: 50, termsPer: 140, docs: 2000, docLen: 6}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	m, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: 50, Iterations: 5, BurnIn: 2},
		rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, 50)
	for i := range theta {
		theta[i] = 1.0 / 50
	}
	dst := make([]float64, m.V)
	logs := LogTermTopics(m)
	tab := NewKLTable(m)
	b.Run("loop", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			TermKLTo(dst, theta, m, logs, i%m.V)
		}
	})
	b.Run("table", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			tab.TermKLTo(dst, theta, i%m.V)
		}
	})
	// Ten queries of one document in one call.
	queries := []int{3, 140, 500, 777, 1200, 2500, 3100, 4000, 5555, 6999}
	dst10 := make([]float64, len(queries)*m.V)
	b.Run("table10", func(b *testing.B) {
		for b.Loop() {
			tab.TermsKLTo(dst10, theta, queries)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries)), "ns/query")
	})
}
