package baselines

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// Planted corpus for the contextual baselines: concept A owns terms 0..4,
// concept B owns terms 5..9, and term 10 is polysemous (used with both). Every
// document has 3 distinct terms of one concept, and half of them also term 10.
const (
	plantedV    = 11
	polysemous  = 10
	plantedDocs = 400
)

func plantedCorpus(seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 1))
	docs := make([][]int, plantedDocs)
	for d := range docs {
		base := 0
		if d%2 == 1 {
			base = 5
		}
		perm := rng.Perm(5)
		doc := []int{base + perm[0], base + perm[1], base + perm[2]}
		if rng.IntN(2) == 0 {
			doc = append(doc, polysemous)
		}
		docs[d] = doc
	}
	return docs
}

// orderedFraction returns the fraction of (related, unrelated) term pairs that
// row ranks correctly (related strictly closer), skipping the query itself.
func orderedFraction(row []float64, related, unrelated []int) float64 {
	ok, n := 0, 0
	for _, r := range related {
		for _, u := range unrelated {
			n++
			if row[r] < row[u] {
				ok++
			}
		}
	}
	return float64(ok) / float64(n)
}

var (
	conceptA = []int{0, 1, 2, 3, 4}
	conceptB = []int{5, 6, 7, 8, 9}
)

// checkContextual asserts that m ranks the query's own concept above the other
// one, for an unambiguous query and for the polysemous term in each context.
func checkContextual(t *testing.T, m eval.Model, ctxA, ctxB []int) {
	t.Helper()
	dst := make([]float64, plantedV)
	rng := rand.New(rand.NewPCG(5, 5))
	cases := []struct {
		name       string
		ctx        []int
		q          int
		rel, unrel []int
	}{
		{"term 0 in A", ctxA, 0, conceptA[1:], conceptB},
		{"term 5 in B", ctxB, 5, conceptB[1:], conceptA},
		{"polysemous in A", ctxA, polysemous, conceptA, conceptB},
		{"polysemous in B", ctxB, polysemous, conceptB, conceptA},
	}
	for _, c := range cases {
		m.Distances(c.ctx, []int{c.q}, rng, dst)
		// Expected 1: the planted concepts are disjoint, so every related term
		// should come first; 0.9 allows a near tie from sampling noise.
		if f := orderedFraction(dst, c.rel, c.unrel); f < 0.9 {
			t.Errorf("%s: %s ordered fraction %v, want ≥ 0.9 (row %v)", m.Name(), c.name, f, dst)
		}
	}
}

func TestLDABaselineRanksPlanted(t *testing.T) {
	docs := plantedCorpus(1)
	m, err := FitLDA(context.Background(), docs, plantedV, TopicOptions{Topics: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	checkContextual(t, m, []int{0, 1, 2, polysemous}, []int{5, 6, 7, polysemous})
	checkSelfZeroAndConcurrent(t, m, []int{0, 1, 2, polysemous})
}

// checkSelfZeroAndConcurrent checks that a query is at distance 0 from itself
// and that concurrent calls with equal seeds give identical rows.
func checkSelfZeroAndConcurrent(t *testing.T, m eval.Model, ctx []int) {
	t.Helper()
	want := make([]float64, 2*plantedV)
	m.Distances(ctx, []int{0, polysemous}, rand.New(rand.NewPCG(3, 3)), want)
	if want[0] != 0 || want[plantedV+polysemous] != 0 {
		t.Errorf("%s: self distances %v, %v, want 0", m.Name(), want[0], want[plantedV+polysemous])
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]float64, 2*plantedV)
			for range 20 {
				m.Distances(ctx, []int{0, polysemous}, rand.New(rand.NewPCG(3, 3)), got)
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("%s: concurrent call: dst[%d] = %v, want %v", m.Name(), i, got[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
