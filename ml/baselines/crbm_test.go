package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/shareddata"
)

func trainPlantedCRBM(t *testing.T, cfg CRBMConfig) (*CRBM, [][]int) {
	t.Helper()
	docs := plantedCorpus(3)
	m, err := TrainCRBM(context.Background(), docs, plantedV, cfg, 11, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, docs
}

// findDoc returns a training document of the given concept holding the
// polysemous term.
func findDoc(docs [][]int, concept int) []int {
	for _, d := range docs {
		if (d[0] < 5) == (concept == 0) && slices.Contains(d, polysemous) {
			return d
		}
	}
	panic("no such document")
}

func TestCRBMRanksPlanted(t *testing.T) {
	m, docs := trainPlantedCRBM(t, CRBMConfig{})
	ctxA, ctxB := findDoc(docs, 0), findDoc(docs, 1)
	dst := make([]float64, plantedV)
	// A query inside its own training document: the document's other terms
	// (the priming ground truth) rank above the other concept's terms. (The
	// CRBM smooths term-to-document relatedness, §6.2.5; concept-level
	// generalisation to terms outside the document is not asserted.)
	for _, c := range []struct {
		name       string
		ctx        []int
		q          int
		rel, unrel []int
	}{
		{"polysemous in A", ctxA, polysemous, without(ctxA, polysemous), conceptB},
		{"polysemous in B", ctxB, polysemous, without(ctxB, polysemous), conceptA},
		{"first term of A doc", ctxA, ctxA[0], without(ctxA, ctxA[0]), conceptB},
		{"first term of B doc", ctxB, ctxB[0], without(ctxB, ctxB[0]), conceptA},
	} {
		m.Distances(c.ctx, []int{c.q}, rand.New(rand.NewPCG(4, 4)), dst)
		if f := orderedFraction(dst, c.rel, c.unrel); f < 0.9 {
			t.Errorf("%s: ordered fraction %v, want ≥ 0.9 (row %v)", c.name, f, dst)
		}
		if dst[c.q] != -1 {
			t.Errorf("%s: clamped query activation %v, want -1", c.name, dst[c.q])
		}
	}
	got, again := make([]float64, plantedV), make([]float64, plantedV)
	m.Distances(ctxA, []int{0}, rand.New(rand.NewPCG(8, 8)), got)
	m.Distances(ctxA, []int{0}, rand.New(rand.NewPCG(8, 8)), again)
	if !slices.Equal(got, again) {
		t.Errorf("same rng seed, different rows: %v vs %v", got, again)
	}
}

func without(s []int, x int) []int {
	var out []int
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func TestCRBMKnows(t *testing.T) {
	m, docs := trainPlantedCRBM(t, CRBMConfig{Epochs: 2})
	d := slices.Clone(docs[0])
	slices.Reverse(d)
	if !m.Knows(d) {
		t.Errorf("Knows(%v) (a training document reordered) = false, want true", d)
	}
	if !m.Knows(append(d, d[0])) {
		t.Errorf("Knows with a repeated term = false, want true")
	}
	// Terms 0 and 5 never co-occur in the planted corpus.
	if m.Knows([]int{0, 5}) {
		t.Errorf("Knows([0 5]) = true, want false")
	}
	if m.Knows(nil) {
		t.Errorf("Knows(nil) = true, want false")
	}
}

// TestCRBMDefaultMatchesPaper justifies the default inference: on the planted
// model, the default chains' activations differ from the paper's 100 trials ×
// 100 steps by no more than two runs of the paper's procedure with different
// seeds differ (mean absolute difference over the vocabulary, with 50 % slack),
// and both put the same terms in the top |δ| (the unrelated terms' small
// activations are ordered by noise in both, so a full rank correlation is not
// meaningful).
func TestCRBMDefaultMatchesPaper(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the paper's 10⁴ Gibbs steps per query")
	}
	def, docs := trainPlantedCRBM(t, CRBMConfig{})
	paper := &CRBM{v: def.v, h: def.h, cfg: def.cfg, u: def.u, d: def.d, c: def.c, cond: def.cond, index: def.index}
	paper.cfg.Trials, paper.cfg.Steps, paper.cfg.BurnIn = 100, 100, 99
	for _, c := range []struct {
		ctx []int
		q   int
	}{{findDoc(docs, 0), polysemous}, {findDoc(docs, 1), 6}, {findDoc(docs, 0), 0}} {
		a, b, b2 := make([]float64, plantedV), make([]float64, plantedV), make([]float64, plantedV)
		def.Distances(c.ctx, []int{c.q}, rand.New(rand.NewPCG(1, 1)), a)
		paper.Distances(c.ctx, []int{c.q}, rand.New(rand.NewPCG(1, 2)), b)
		paper.Distances(c.ctx, []int{c.q}, rand.New(rand.NewPCG(1, 3)), b2)
		dDef, dPaper := meanAbsDiff(a, b), meanAbsDiff(b, b2)
		t.Logf("ctx %v q %d: |default−paper| %.4f, |paper−paper| %.4f", c.ctx, c.q, dDef, dPaper)
		if dDef > 1.5*dPaper+0.01 {
			t.Errorf("ctx %v q %d: default differs from the paper's estimate by %v, paper runs by %v", c.ctx, c.q, dDef, dPaper)
		}
		ta, tb := topSet(a, len(c.ctx)), topSet(b, len(c.ctx))
		if !slices.Equal(ta, tb) {
			t.Errorf("ctx %v q %d: top-%d default %v, paper %v", c.ctx, c.q, len(c.ctx), ta, tb)
		}
	}
}

func meanAbsDiff(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(len(a))
}

// topSet returns the indices of the n smallest entries, sorted.
func topSet(x []float64, n int) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return x[idx[i]] < x[idx[j]] })
	top := slices.Clone(idx[:n])
	slices.Sort(top)
	return top
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
		b.Run(fmt.Sprintf("%s/V=%d", m.Name(), v), func(b *testing.B) {
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
