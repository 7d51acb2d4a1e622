package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCRBMDistances times CRBM.Distances with the default inference
// (10 chains × 20 steps) on the mtg-jamendo training documents (skipped when
// absent), as the evaluator calls it: one call per document with every term
// of the document as a query. It reports queries/s; the priming and extended
// priming protocols of the training subset need ~4 queries per document.
func BenchmarkCRBMDistances(b *testing.B) {
	train, v := loadTrain(b, "mtg-jamendo")
	m, err := TrainCRBM(context.Background(), train, v, CRBMConfig{}, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("V=%d/docs=%d", v, len(train)), func(b *testing.B) {
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
	})
}
