package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// BenchmarkCRBMDistances times CRBM.Distances with the default inference
// (10 chains × 20 steps, burn-in 5, H = 10) on the mtg-jamendo training
// documents (skipped when absent), as the evaluator calls it: one call per
// document with every term of the document as a query (2.8 on average). It
// reports queries/s, serially and with GOMAXPROCS goroutines (parallel; each
// goroutine has its own rng, documents are taken in turn from a shared
// counter).
func BenchmarkCRBMDistances(b *testing.B) {
	train, v := loadTrain(b, "mtg-jamendo")
	m, err := FitCRBM(context.Background(), train, v, CRBMOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("V=%d/docs=%d", v, len(train)), func(b *testing.B) { benchDistances(b, m, train, v) })
	b.Run(fmt.Sprintf("V=%d/docs=%d/parallel", v, len(train)), func(b *testing.B) {
		var next, queries, seed atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			dst := make([]float64, 64*v)
			rng := rand.New(rand.NewPCG(uint64(seed.Add(1)), 1))
			for pb.Next() {
				d := train[int(next.Add(1)-1)%len(train)]
				m.Distances(d, d, rng, dst[:len(d)*v])
				queries.Add(int64(len(d)))
			}
		})
		b.ReportMetric(float64(queries.Load())/b.Elapsed().Seconds(), "queries/s")
	})
}

// BenchmarkContextualBaselines times Distances of the LDA, PLSA and CRBM
// baselines on mtg-jamendo training documents (skipped when absent), one call
// per document with every term as a query, and reports queries/s.
func BenchmarkContextualBaselines(b *testing.B) {
	train, v := loadTrain(b, "mtg-jamendo")
	ctx := context.Background()
	lda, err := FitLDA(ctx, train, v, TopicOptions{Topics: 19, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	plsa, err := FitPLSA(ctx, train, v, TopicOptions{Topics: 19, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	crbm, err := FitCRBM(ctx, train, v, CRBMOptions{Epochs: 5, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []eval.Model{lda, plsa, crbm} {
		b.Run(fmt.Sprintf("%s/V=%d", m.Name(), v), func(b *testing.B) { benchDistances(b, m, train, v) })
	}
}

// loadTrain reads the training documents of a ../shared/data corpus with a
// split.tsv, encoded against their own sorted vocabulary; it skips when absent.
func loadTrain(tb testing.TB, corpusName string) ([][]int, int) {
	tb.Helper()
	train, _, _, v := loadSplit(tb, corpusName)
	return train, v
}

// benchDistances times m's distances from every term of the training
// documents in turn (one document per iteration), reporting queries/s.
func benchDistances(b *testing.B, m eval.Model, train [][]int, v int) {
	dst := make([]float64, 64*v)
	rng := rand.New(rand.NewPCG(1, 1))
	queries := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := train[i%len(train)]
		m.Distances(d, d, rng, dst[:len(d)*v])
		queries += len(d)
	}
	b.ReportMetric(float64(queries)/b.Elapsed().Seconds(), "queries/s")
}
