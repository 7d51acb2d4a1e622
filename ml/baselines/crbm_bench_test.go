package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/shareddata"
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
	m, err := TrainCRBM(context.Background(), train, v, CRBMConfig{}, 1, nil)
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
	lda, err := TrainLDA(ctx, train, v, 19, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	plsa, err := TrainPLSA(ctx, train, v, 19, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	crbm, err := TrainCRBM(ctx, train, v, CRBMConfig{Epochs: 5}, 1, nil)
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
	read := func(name string) [][]string {
		data, err := os.ReadFile(shareddata.File(tb, corpusName, name))
		if err != nil {
			tb.Fatal(err)
		}
		var rows [][]string
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" {
				rows = append(rows, strings.Split(line, "\t"))
			}
		}
		return rows
	}
	sub := map[string]string{}
	for _, r := range read("split.tsv") {
		sub[r[0]] = r[1]
	}
	var raw [][]string
	set := map[string]bool{}
	for _, r := range read("docs.tsv") {
		if sub[r[0]] == "train" {
			raw = append(raw, r[1:])
			for _, t := range r[1:] {
				set[t] = true
			}
		}
	}
	terms := make([]string, 0, len(set))
	for t := range set {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	id := map[string]int{}
	for i, t := range terms {
		id[t] = i
	}
	docs := make([][]int, len(raw))
	for i, d := range raw {
		for _, t := range d {
			docs[i] = append(docs[i], id[t])
		}
	}
	return docs, len(terms)
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
