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
