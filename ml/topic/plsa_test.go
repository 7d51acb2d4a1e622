package topic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPLSALogLikNonDecreasing(t *testing.T) {
	p := planted{k: 4, termsPer: 10, docs: 300, docLen: 6}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	m, err := FitPLSA(context.Background(), docs, p.v(), PLSAConfig{K: 4, MaxIter: 200, Tol: 1e-12},
		rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LogLik) < 10 {
		t.Fatalf("only %d EM iterations", len(m.LogLik))
	}
	// EM never decreases the likelihood (Dempster, Laird & Rubin 1977); allow
	// rounding of a sum of ~1800 logs.
	for i := 1; i < len(m.LogLik); i++ {
		if m.LogLik[i] < m.LogLik[i-1]-1e-9*math.Abs(m.LogLik[i-1]) {
			t.Errorf("iteration %d: log-likelihood %v < previous %v", i+1, m.LogLik[i], m.LogLik[i-1])
		}
	}
	// Planted topics are recovered too (EM can find a local optimum, but this
	// well-separated case is easy).
	if _, worst := matchTopics(m.Phi, p.phi(), 4, p.v()); worst > 0.15 {
		t.Errorf("worst matched total variation %v, want ≤ 0.15", worst)
	}
}

func TestPLSAConvergenceStops(t *testing.T) {
	p := planted{k: 3, termsPer: 5, docs: 100, docLen: 4}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	m, err := FitPLSA(context.Background(), docs, p.v(), PLSAConfig{K: 3, MaxIter: 5000, Tol: 1e-4},
		rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(m.LogLik)
	if n == 5000 {
		t.Fatalf("EM ran all 5000 iterations, want a stop on convergence")
	}
	last, prev := m.LogLik[n-1], m.LogLik[n-2]
	if last-prev >= 1e-4*math.Abs(last) {
		t.Errorf("stopped with improvement %v ≥ tol·|ll| = %v", last-prev, 1e-4*math.Abs(last))
	}
}

func TestPLSAFoldIn(t *testing.T) {
	p := planted{k: 4, termsPer: 10}
	v := p.v()
	phi := p.phi()
	for i := range phi {
		phi[i] = (phi[i] + 1e-6) / (1 + float64(v)*1e-6)
	}
	m, err := NewPLSA(4, v, phi, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 3 tokens of topic 1 and 1 of topic 3 with disjoint topics: the maximum
	// likelihood p(φ|δ) is the token share (0, 0.75, 0, 0.25).
	doc := []int{10, 11, 15, 33}
	got := make([]float64, 4)
	m.InferTo(got, doc, nil)
	want := []float64{0, 0.75, 0, 0.25}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-3 {
			t.Errorf("θ[%d]: got %v, want %v", k, got[k], want[k])
		}
	}
	if raceEnabled {
		return // sync.Pool drops items at random under the race detector
	}
	if a := testing.AllocsPerRun(50, func() { m.InferTo(got, doc, nil) }); a != 0 {
		t.Errorf("allocations: got %v, want 0", a)
	}
}

func TestTermKLHand(t *testing.T) {
	// Hand computation: θ = (½, ½), p1 = (0.2, 0.4), p2 = (0.1, 0.8), p(τ1) = ½:
	// c=1: ½·0.1·ln 2 = 0.05 ln 2; c=2: ½·(−0.4)·ln ½ = 0.2 ln 2;
	// sum 0.25 ln 2, divided by p(τ1) = ½ → 0.5 ln 2.
	cases := []struct {
		theta, p1, p2 []float64
		pTau, want    float64
	}{
		{[]float64{0.5, 0.5}, []float64{0.2, 0.4}, []float64{0.1, 0.8}, 0.5, 0.5 * math.Ln2},
		// Identical terms: 0.
		{[]float64{0.3, 0.7}, []float64{0.2, 0.4}, []float64{0.2, 0.4}, 0.1, 0},
		// One topic with θ = 1: (0.5−0.25)·ln 2 / 1.
		{[]float64{1}, []float64{0.5}, []float64{0.25}, 1, 0.25 * math.Ln2},
	}
	for _, c := range cases {
		if got := TermKL(c.theta, c.p1, c.p2, c.pTau); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("TermKL(%v, %v, %v, %v): got %v, want %v", c.theta, c.p1, c.p2, c.pTau, got, c.want)
		}
	}
}

func TestTermKLToMatchesTermKL(t *testing.T) {
	p := planted{k: 3, termsPer: 4, docs: 100, docLen: 4}
	docs := p.generate(rand.New(rand.NewPCG(1, 2)))
	m, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: 3, Iterations: 20, BurnIn: 10},
		rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.2, 0.5, 0.3}
	logs := LogTermTopics(m)
	dst := make([]float64, m.V)
	for q := 0; q < m.V; q++ {
		TermKLTo(dst, theta, m, logs, q)
		for j := range dst {
			want := TermKL(theta, m.TermTopics(q), m.TermTopics(j), 1/float64(m.V))
			if math.Abs(dst[j]-want) > 1e-12*math.Max(1, want) {
				t.Fatalf("q=%d j=%d: got %v, want %v", q, j, dst[j], want)
			}
		}
	}
}

// TestKernelKLTableMatchesTermKLTo checks KLTable.TermKLTo (16 terms at a time in
// the AVX2 kernel where there is one) against TermKLTo bit for bit, on
// vocabularies with and without a partial block of 16 and several topic counts.
func TestKernelKLTableMatchesTermKLTo(t *testing.T) {
	for _, c := range []struct{ k, per int }{{1, 5}, {3, 4}, {5, 7}, {4, 16}, {7, 9}} {
		p := planted{k: c.k, termsPer: c.per, docs: 120, docLen: 4}
		docs := p.generate(rand.New(rand.NewPCG(uint64(c.k), 2)))
		m, err := FitLDA(context.Background(), docs, p.v(), LDAConfig{K: c.k, Iterations: 20, BurnIn: 10},
			rand.New(rand.NewPCG(1, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		tab := NewKLTable(m)
		logs := LogTermTopics(m)
		rng := rand.New(rand.NewPCG(5, 5))
		theta := make([]float64, c.k)
		got, want := make([]float64, m.V), make([]float64, m.V)
		for q := 0; q < m.V; q++ {
			var sum float64
			for i := range theta {
				theta[i] = rng.Float64()
				sum += theta[i]
			}
			for i := range theta {
				theta[i] /= sum
			}
			tab.TermKLTo(got, theta, q)
			TermKLTo(want, theta, m, logs, q)
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("K=%d V=%d q=%d j=%d: %v, TermKLTo %v", c.k, m.V, q, j, got[j], want[j])
				}
			}
		}
		// Several queries of one document at once.
		queries := []int{m.V - 1, 0, m.V / 2, 0}
		many := make([]float64, len(queries)*m.V)
		tab.TermsKLTo(many, theta, queries)
		for i, q := range queries {
			TermKLTo(want, theta, m, logs, q)
			for j := range want {
				if math.Float64bits(many[i*m.V+j]) != math.Float64bits(want[j]) {
					t.Fatalf("K=%d V=%d: queries %v, row %d term %d: %v, TermKLTo %v", c.k, m.V, queries, i, j, many[i*m.V+j], want[j])
				}
			}
		}
	}
}
