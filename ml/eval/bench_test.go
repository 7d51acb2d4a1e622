package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// embedModel is a synthetic contextual model shaped like CE on mtg-jamendo: V terms
// embedded in dim dimensions; the query is shifted by a tenth of the context mean.
type embedModel struct {
	v, dim int
	emb    []float64 // v×dim
}

func newEmbedModel(v, dim int, seed uint64) *embedModel {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := &embedModel{v: v, dim: dim, emb: make([]float64, v*dim)}
	for i := range m.emb {
		m.emb[i] = rng.NormFloat64()
	}
	return m
}

func (m *embedModel) Name() string     { return "embed" }
func (m *embedModel) Contextual() bool { return true }
func (m *embedModel) VocabSize() int   { return m.v }
func (m *embedModel) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	var shift, q [64]float64
	for _, c := range ctx {
		for k := 0; k < m.dim; k++ {
			shift[k] += m.emb[c*m.dim+k] / float64(10*len(ctx))
		}
	}
	for i, t := range queries {
		for k := 0; k < m.dim; k++ {
			q[k] = m.emb[t*m.dim+k] + shift[k]
		}
		row := dst[i*m.v : (i+1)*m.v]
		for j := range row {
			e := m.emb[j*m.dim : (j+1)*m.dim]
			s := 0.0
			for k, x := range e {
				d := q[k] - x
				s += d * d
			}
			row[j] = math.Sqrt(s)
		}
	}
}

// mtgLikeDocs draws n documents over v terms with the document-length histogram of
// mtg-jamendo (lengths 1..10, counts from its docs.tsv).
func mtgLikeDocs(n, v int, seed uint64) [][]int {
	counts := []int{6311, 9824, 10980, 8742, 6968, 4378, 3149, 1964, 1199, 787}
	total := 0
	for _, c := range counts {
		total += c
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	docs := make([][]int, n)
	for i := range docs {
		u := rng.IntN(total)
		l := 1
		for _, c := range counts {
			if u < c {
				break
			}
			u -= c
			l++
		}
		docs[i] = rng.Perm(v)[:l]
	}
	return docs
}

func benchmarkProtocol(b *testing.B, p Protocol) {
	for _, n := range []int{12510} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			m := newEmbedModel(161, 10, 1)
			docs := mtgLikeDocs(n, 161, 3)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Evaluate(context.Background(), m, p, docs, &Options{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkExtended measures extended priming over the 12,510 documents of the
// mtg-jamendo test subset (V = 161) with a synthetic 10-dimensional embedding model.
func BenchmarkExtended(b *testing.B) { benchmarkProtocol(b, Extended) }

// BenchmarkPriming is BenchmarkExtended under the priming protocol.
func BenchmarkPriming(b *testing.B) { benchmarkProtocol(b, Priming) }

// BenchmarkRanksTo ranks the 14 terms of a document (citeulike-a's mean) in a
// list of 7,000 distances (its vocabulary), once per query of the priming
// protocol: "loops" with the Go loops, "kernel" with the AVX2 counts.
func BenchmarkRanksTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	dist := make([]float64, 7000)
	for i := range dist {
		dist[i] = rng.Float64()
	}
	rel := rng.Perm(len(dist))[:14]
	ranks := make([]int, len(rel))
	for _, kernel := range []bool{false, true} {
		if kernel && !useCountCmp {
			continue
		}
		name := "loops"
		if kernel {
			name = "kernel"
		}
		b.Run(name, func(b *testing.B) {
			saved := useCountCmp
			useCountCmp = kernel
			defer func() { useCountCmp = saved }()
			for b.Loop() {
				RanksTo(ranks, dist, rel)
			}
		})
	}
}
