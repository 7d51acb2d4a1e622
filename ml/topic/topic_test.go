package topic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// planted describes a synthetic corpus: K disjoint topics of termsPer terms each
// (topic k owns terms k*termsPer .. (k+1)*termsPer-1, uniform within), documents
// of docLen tokens drawn from one topic, or two topics half and half.
type planted struct {
	k, termsPer, docs, docLen int
}

func (p planted) v() int { return p.k * p.termsPer }

func (p planted) phi() []float64 {
	v := p.v()
	phi := make([]float64, p.k*v)
	for k := 0; k < p.k; k++ {
		for j := 0; j < p.termsPer; j++ {
			phi[k*v+k*p.termsPer+j] = 1 / float64(p.termsPer)
		}
	}
	return phi
}

func (p planted) generate(rng *rand.Rand) [][]int {
	docs := make([][]int, p.docs)
	for d := range docs {
		a := rng.IntN(p.k)
		b := a
		if rng.IntN(3) == 0 {
			b = rng.IntN(p.k)
		}
		doc := make([]int, p.docLen)
		for i := range doc {
			t := a
			if i%2 == 1 {
				t = b
			}
			doc[i] = t*p.termsPer + rng.IntN(p.termsPer)
		}
		rng.Shuffle(len(doc), func(i, j int) { doc[i], doc[j] = doc[j], doc[i] })
		docs[d] = doc
	}
	return docs
}

// matchTopics greedily matches learned topics to planted ones by smallest total
// variation distance; it returns the learned index for each planted topic and
// the largest distance of a matched pair.
func matchTopics(learned, truth []float64, k, v int) ([]int, float64) {
	used := make([]bool, k)
	match := make([]int, k)
	worst := 0.0
	for p := 0; p < k; p++ {
		best, bi := math.Inf(1), -1
		for l := 0; l < k; l++ {
			if used[l] {
				continue
			}
			tv := 0.0
			for w := 0; w < v; w++ {
				tv += math.Abs(learned[l*v+w] - truth[p*v+w])
			}
			tv /= 2
			if tv < best {
				best, bi = tv, l
			}
		}
		used[bi] = true
		match[p] = bi
		worst = math.Max(worst, best)
	}
	return match, worst
}

func TestFitLDARecoversPlantedTopics(t *testing.T) {
	for _, p := range []planted{
		{k: 4, termsPer: 10, docs: 600, docLen: 6},
		{k: 8, termsPer: 12, docs: 1500, docLen: 4},
	} {
		docs := p.generate(rand.New(rand.NewPCG(1, 2)))
		m, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: p.k, Iterations: 200, BurnIn: 150},
			rand.New(rand.NewPCG(3, 4)), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Each learned topic should put nearly all mass on its planted block:
		// total variation ≤ 0.15 (sampling noise of ~60 tokens per term plus β smoothing).
		_, worst := matchTopics(m.Phi, p.phi(), p.k, p.v())
		if worst > 0.15 {
			t.Errorf("K=%d: worst matched total variation %v, want ≤ 0.15", p.k, worst)
		}
		for k := 0; k < p.k; k++ {
			s := 0.0
			for _, x := range m.Phi[k*p.v() : (k+1)*p.v()] {
				s += x
			}
			if math.Abs(s-1) > 1e-9 {
				t.Errorf("topic %d sums to %v, want 1", k, s)
			}
		}
	}
}

func TestFitLDADeterministic(t *testing.T) {
	p := planted{k: 4, termsPer: 10, docs: 200, docLen: 5}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	fit := func() *LDA {
		m, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: 4, Iterations: 50, BurnIn: 30},
			rand.New(rand.NewPCG(7, 8)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := fit(), fit()
	for i := range a.Phi {
		if a.Phi[i] != b.Phi[i] {
			t.Fatalf("Phi[%d]: got %v and %v from the same seed", i, a.Phi[i], b.Phi[i])
		}
	}
	if a.LogLik != b.LogLik {
		t.Errorf("LogLik: got %v and %v from the same seed", a.LogLik, b.LogLik)
	}
}

// TestSamplerCounts checks the sparse sampler's bookkeeping after sweeps: the
// per-term topic lists hold exactly the non-zero counts and the totals agree
// with the assignments.
func TestSamplerCounts(t *testing.T) {
	p := planted{k: 5, termsPer: 6, docs: 300, docLen: 5}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	cfg := LDAConfig{K: 5}.withDefaults()
	s, err := newSampler(docs, p.v(), cfg, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		s.sweep()
	}
	nkw := make([]int32, p.v()*5)
	nk := make([]int32, 5)
	for d, doc := range docs {
		for i, w := range doc {
			nkw[w*5+int(s.z[d][i])]++
			nk[s.z[d][i]]++
		}
	}
	for i := range nkw {
		if nkw[i] != s.nkw[i] {
			t.Fatalf("nkw[%d]: got %d, want %d", i, s.nkw[i], nkw[i])
		}
	}
	for k := range nk {
		if nk[k] != s.nk[k] {
			t.Fatalf("nk[%d]: got %d, want %d", k, s.nk[k], nk[k])
		}
	}
	for w := 0; w < p.v(); w++ {
		nz := 0
		for k := 0; k < 5; k++ {
			if nkw[w*5+k] > 0 {
				nz++
			}
		}
		if int(s.wLen[w]) != nz {
			t.Errorf("term %d: list length %d, want %d non-zero topics", w, s.wLen[w], nz)
		}
		for _, k := range s.wTop[s.wOff[w] : s.wOff[w]+int(s.wLen[w])] {
			if nkw[w*5+int(k)] == 0 {
				t.Errorf("term %d: topic %d listed with zero count", w, k)
			}
		}
	}
}

// TestInferRecoversMix folds in documents with a known topic mix against the
// planted topics (smoothed) and checks the estimate.
func TestInferRecoversMix(t *testing.T) {
	p := planted{k: 4, termsPer: 10}
	v := p.v()
	phi := p.phi()
	for i := range phi {
		phi[i] = (phi[i] + 1e-3) / (1 + float64(v)*1e-3)
	}
	m, err := NewLDA(4, v, 0.1, 0.01, phi)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	// 30 tokens of topic 0, 10 of topic 2: θ ≈ (30+α, α, 10+α, α)/(40+4α) exactly
	// in expectation when the topics are (near) disjoint.
	var doc []int
	for i := 0; i < 30; i++ {
		doc = append(doc, rng.IntN(10))
	}
	for i := 0; i < 10; i++ {
		doc = append(doc, 20+rng.IntN(10))
	}
	want := []float64{30.1 / 40.4, 0.1 / 40.4, 10.1 / 40.4, 0.1 / 40.4}
	got := make([]float64, 4)
	m.InferTo(got, doc, rng)
	for k := range want {
		if math.Abs(got[k]-want[k]) > 0.01 {
			t.Errorf("Gibbs θ[%d]: got %v, want %v", k, got[k], want[k])
		}
	}
	m.InferVBTo(got, doc)
	for k := range want {
		if math.Abs(got[k]-want[k]) > 0.01 {
			t.Errorf("VB θ[%d]: got %v, want %v", k, got[k], want[k])
		}
	}
	m.InferTo(got, nil, rng)
	for k := range got {
		if got[k] != 0.25 {
			t.Errorf("empty doc θ[%d]: got %v, want prior mean 0.25", k, got[k])
		}
	}
}

func TestInferToDeterministicAndAllocFree(t *testing.T) {
	p := planted{k: 4, termsPer: 10, docs: 300, docLen: 5}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	m, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: 4, Iterations: 30, BurnIn: 20},
		rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, 4), make([]float64, 4)
	m.InferTo(a, docs[0], rand.New(rand.NewPCG(11, 0)))
	m.InferTo(b, docs[0], rand.New(rand.NewPCG(11, 0)))
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("θ[%d]: got %v and %v with the same seed", i, a[i], b[i])
		}
	}
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	allocs := testing.AllocsPerRun(100, func() { m.InferTo(a, docs[1], rng) })
	if allocs != 0 {
		t.Errorf("InferTo allocations: got %v, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() { m.InferVBTo(a, docs[1]) })
	if allocs != 0 {
		t.Errorf("InferVBTo allocations: got %v, want 0", allocs)
	}
}

func TestPerplexityTrueKBetter(t *testing.T) {
	if testing.Short() {
		t.Skip("fits several models")
	}
	p := planted{k: 6, termsPer: 10, docs: 1200, docLen: 6}
	all := p.generate(rand.New(rand.NewPCG(21, 22)))
	train, held := all[:1000], all[1000:]
	perp := map[int]float64{}
	for _, k := range []int{1, 6, 40} {
		m, err := FitLDA(context.Background(), train, p.v(), LDAConfig{K: k, Iterations: 150, BurnIn: 100},
			rand.New(rand.NewPCG(1, uint64(k))), nil)
		if err != nil {
			t.Fatal(err)
		}
		perp[k], err = m.Perplexity(held, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
	}
	// Analytic floor: with the true topics, a held-out token of a one-topic
	// document has probability ≈ 1/10, so perplexity ≈ 10 at best; K=1 gives ≈ V = 60.
	if !(perp[6] < perp[1]) || !(perp[6] < perp[40]) {
		t.Errorf("perplexities %v: want K=6 lowest", perp)
	}
	if perp[6] < 9 {
		t.Errorf("perplexity at true K %v is below the analytic floor ≈ 10", perp[6])
	}
	k, scores, err := SelectK(context.Background(), train, p.v(),
		LDAConfig{Select: SelectConfig{Grid: []int{2, 4, 6, 10, 20}, HeldOut: 0.3}}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if k != 6 {
		t.Errorf("SelectK: got %d (scores %v), want 6", k, scores)
	}
}

func TestFitLDACancel(t *testing.T) {
	p := planted{k: 4, termsPer: 10, docs: 100, docLen: 5}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := FitLDA(ctx, docs, p.v(), LDAConfig{K: 4, Iterations: 100, LogLikLag: 1}, rand.New(rand.NewPCG(1, 1)),
		func(int, float64) {
			calls++
			if calls == 3 {
				cancel()
			}
		})
	if err == nil {
		t.Fatal("got nil error after cancel, want context.Canceled")
	}
	if calls != 3 {
		t.Errorf("progress calls: got %d, want 3", calls)
	}
}

func TestFitLDABadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name string
		docs [][]int
		v    int
	}{
		{"out of range", [][]int{{0, 5}}, 5},
		{"negative", [][]int{{-1}}, 5},
		{"no tokens", [][]int{{}, {}}, 5},
		{"zero V", [][]int{{0}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := FitLDA(context.Background(), tc.docs, tc.v, LDAConfig{K: 2}, rng, nil); err == nil {
				t.Errorf("got nil error, want one")
			}
			if _, err := FitPLSA(context.Background(), tc.docs, tc.v, PLSAConfig{K: 2}, rng, nil); err == nil {
				t.Errorf("PLSA: got nil error, want one")
			}
		})
	}
}

func TestLogLikIncreases(t *testing.T) {
	p := planted{k: 4, termsPer: 10, docs: 400, docLen: 6}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	var lls []float64
	_, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: 4, Iterations: 60, LogLikLag: 1},
		rand.New(rand.NewPCG(1, 1)), func(_ int, ll float64) { lls = append(lls, ll) })
	if err != nil {
		t.Fatal(err)
	}
	// From a random start, log p(w|z) must rise substantially (Gibbs is
	// stochastic, so only the overall trend is checked).
	if !(lls[len(lls)-1] > lls[0]+100) {
		t.Errorf("log p(w|z): first %v, last %v, want a rise of > 100 nats", lls[0], lls[len(lls)-1])
	}
}
