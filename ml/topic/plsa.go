package topic

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/taglens/taglens/ml/internal/defaults"
)

// PLSA defaults.
const (
	DefaultPLSAMaxIter     = 500
	DefaultPLSATol         = 1e-6
	DefaultPLSAFoldMaxIter = 100
	DefaultPLSAFoldTol     = 1e-6
	// PLSAMinProb floors the fitted p(τ|φ) so that Eq. 1's logarithms are finite.
	PLSAMinProb = 1e-12
)

// PLSAConfig holds the tunables of FitPLSA. Zero values mean the defaults.
type PLSAConfig struct {
	// K is the number of topics; it must be positive (the paper uses the
	// LDA's topic count).
	K int
	// MaxIter bounds the EM iterations (default 500).
	MaxIter int
	// Tol is the stopping criterion: EM stops when the log-likelihood
	// improves by less than Tol·|logLik| in one iteration (default 1e-6).
	Tol float64
	// FoldMaxIter and FoldTol configure the fold-in EM of InferTo: it stops
	// after FoldMaxIter iterations (default 100) or when no p(φ|δ) changes by
	// more than FoldTol (default 1e-6).
	FoldMaxIter int
	FoldTol     float64
}

// PLSA is a fitted probabilistic latent semantic analysis model (Hofmann 1999),
// the aspect model p(d, w) = p(d) Σ_k p(φ_k|d) p(τ_w|φ_k). It is safe for
// concurrent use once fitted.
type PLSA struct {
	K, V int
	// Phi is K×V row-major: Phi[k*V+w] = p(τ_w|φ_k), floored at PLSAMinProb
	// and renormalised.
	Phi []float64
	// TopicMass[k] = p(φ_k), the share of training tokens explained by topic k.
	TopicMass []float64
	// LogLik holds the training log-likelihood Σ_d Σ_w log p(w|d) before each
	// EM iteration's M-step (index i is iteration i+1).
	LogLik []float64
	// FoldMaxIter and FoldTol configure InferTo.
	FoldMaxIter int
	FoldTol     float64

	phiT []float64 // V×K
	pool sync.Pool // *[]float64 of length 3K
}

// FitPLSA fits PLSA to docs (term indices in [0, V)) by EM from a random start
// drawn from rng:
//
//	E: r_dwk = p(φ_k|d) p(τ_w|φ_k) / Σ_k' p(φ_k'|d) p(τ_w|φ_k')
//	M: p(τ_w|φ_k) ∝ Σ_d n_dw r_dwk,   p(φ_k|d) = Σ_w n_dw r_dwk / n_d
//
// stopping on convergence of the likelihood (cfg.Tol) or after cfg.MaxIter
// iterations. progress, when not nil, is called after every iteration with its
// number and the log-likelihood. Empty documents are ignored. It stops with
// ctx.Err() when ctx is cancelled.
// Kept in one function: the EM iterations update the two parameter tables and
// their accumulators in place, state shared by every step of an iteration.
func FitPLSA(ctx context.Context, docs [][]int, v int, cfg PLSAConfig, rng *rand.Rand, progress func(iter int, logLik float64)) (*PLSA, error) {
	if v <= 0 || cfg.K <= 0 {
		return nil, fmt.Errorf("topic: fit PLSA: K=%d, V=%d must be positive", cfg.K, v)
	}
	if err := checkDocs(docs, v); err != nil {
		return nil, fmt.Errorf("topic: fit PLSA: %w", err)
	}
	defaults.Positive(&cfg.MaxIter, DefaultPLSAMaxIter)
	defaults.Positive(&cfg.Tol, DefaultPLSATol)
	k := cfg.K
	// Parameters: phiT V×K p(w|k), pd D×K p(k|d).
	phiT := make([]float64, v*k)
	for i := range phiT {
		phiT[i] = 0.5 + rng.Float64()
	}
	normalizeColumns(phiT, v, k)
	pd := make([]float64, len(docs)*k)
	for d := range docs {
		row := pd[d*k : (d+1)*k]
		s := 0.0
		for i := range row {
			row[i] = 0.5 + rng.Float64()
			s += row[i]
		}
		for i := range row {
			row[i] /= s
		}
	}
	nwk := make([]float64, v*k)
	ndk := make([]float64, k)
	r := make([]float64, k)
	var hist []float64
	prev := math.Inf(-1)
	for it := 1; it <= cfg.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("topic: fit PLSA: %w", err)
		}
		clear(nwk)
		ll := 0.0
		for d, doc := range docs {
			if len(doc) == 0 {
				continue
			}
			row := pd[d*k : (d+1)*k]
			clear(ndk)
			for _, w := range doc {
				col := phiT[w*k : (w+1)*k]
				s := 0.0
				for t, p := range col {
					r[t] = row[t] * p
					s += r[t]
				}
				ll += math.Log(s)
				inv := 1 / s
				acc := nwk[w*k : (w+1)*k]
				for t := range r {
					x := r[t] * inv
					acc[t] += x
					ndk[t] += x
				}
			}
			inv := 1 / float64(len(doc))
			for t := range row {
				row[t] = ndk[t] * inv
			}
		}
		copy(phiT, nwk)
		normalizeColumns(phiT, v, k)
		hist = append(hist, ll)
		if progress != nil {
			progress(it, ll)
		}
		if ll-prev < cfg.Tol*math.Abs(ll) {
			break
		}
		prev = ll
	}
	m := &PLSA{K: k, V: v, LogLik: hist, FoldMaxIter: cfg.FoldMaxIter, FoldTol: cfg.FoldTol}
	for i := range phiT {
		phiT[i] = math.Max(phiT[i], PLSAMinProb)
	}
	normalizeColumns(phiT, v, k)
	m.phiT = phiT
	m.Phi = make([]float64, k*v)
	for w := 0; w < v; w++ {
		for t := 0; t < k; t++ {
			m.Phi[t*v+w] = phiT[w*k+t]
		}
	}
	m.TopicMass = make([]float64, k)
	n := 0
	for d, doc := range docs {
		for t := 0; t < k; t++ {
			m.TopicMass[t] += float64(len(doc)) * pd[d*k+t]
		}
		n += len(doc)
	}
	for t := range m.TopicMass {
		m.TopicMass[t] /= float64(n)
	}
	return m, nil
}

// normalizeColumns makes each of the k columns of the v×k row-major matrix a
// distribution.
func normalizeColumns(a []float64, v, k int) {
	sums := make([]float64, k)
	for w := 0; w < v; w++ {
		for t, x := range a[w*k : (w+1)*k] {
			sums[t] += x
		}
	}
	for t := range sums {
		if sums[t] > 0 {
			sums[t] = 1 / sums[t]
		}
	}
	for w := 0; w < v; w++ {
		row := a[w*k : (w+1)*k]
		for t := range row {
			row[t] *= sums[t]
		}
	}
}

// NewPLSA builds a model from saved parameters: phi is K×V row-major
// p(τ_w|φ_k) (copied), topicMass is p(φ_k) (copied; nil means uniform).
func NewPLSA(k, v int, phi, topicMass []float64) (*PLSA, error) {
	if k <= 0 || v <= 0 || len(phi) != k*v || (topicMass != nil && len(topicMass) != k) {
		return nil, fmt.Errorf("topic: new PLSA: shapes K=%d V=%d len(phi)=%d len(topicMass)=%d", k, v, len(phi), len(topicMass))
	}
	m := &PLSA{K: k, V: v, Phi: append([]float64(nil), phi...)}
	for i, p := range phi {
		if !(p > 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("topic: new PLSA: phi[%d]=%v is not a positive probability", i, p)
		}
	}
	if topicMass == nil {
		m.TopicMass = make([]float64, k)
		for i := range m.TopicMass {
			m.TopicMass[i] = 1 / float64(k)
		}
	} else {
		m.TopicMass = append([]float64(nil), topicMass...)
	}
	m.phiT = make([]float64, v*k)
	for t := 0; t < k; t++ {
		for w := 0; w < v; w++ {
			m.phiT[w*k+t] = phi[t*v+w]
		}
	}
	return m, nil
}

// NumTopics returns K.
func (m *PLSA) NumTopics() int { return m.K }

// VocabSize returns V.
func (m *PLSA) VocabSize() int { return m.V }

// TermTopics returns p(τ_w|φ_k), k = 0..K-1 (read-only).
func (m *PLSA) TermTopics(w int) []float64 { return m.phiT[w*m.K : (w+1)*m.K] }

// InferTo fills dst (length K) with p(φ_k|δ) of a new document by EM with the
// topics fixed (Hofmann 1999, "folding-in"), from the uniform distribution:
//
//	p(φ_k|δ) ← (1/|δ|) Σ_{w∈δ} p(φ_k|δ) p(τ_w|φ_k) / Σ_k' p(φ_k'|δ) p(τ_w|φ_k')
//
// until no entry changes by more than FoldTol or FoldMaxIter iterations. It is
// deterministic (rng is unused and may be nil). An empty document gets
// TopicMass. Safe for concurrent use, no allocation once warm. It panics if
// len(dst) != K or a term is out of range.
func (m *PLSA) InferTo(dst []float64, doc []int, _ *rand.Rand) {
	k := m.K
	if len(dst) != k {
		panic("topic: PLSA InferTo: len(dst) != K")
	}
	for _, w := range doc {
		if w < 0 || w >= m.V {
			panic("topic: term index out of range")
		}
	}
	if len(doc) == 0 {
		copy(dst, m.TopicMass)
		return
	}
	maxIter, tol := m.FoldMaxIter, m.FoldTol
	defaults.Positive(&maxIter, DefaultPLSAFoldMaxIter)
	defaults.Positive(&tol, DefaultPLSAFoldTol)
	bp, _ := m.pool.Get().(*[]float64)
	if bp == nil {
		b := make([]float64, 2*k)
		bp = &b
	}
	defer m.pool.Put(bp)
	r, acc := (*bp)[:k], (*bp)[k:2*k]
	for t := range dst {
		dst[t] = 1 / float64(k)
	}
	inv := 1 / float64(len(doc))
	for it := 0; it < maxIter; it++ {
		clear(acc)
		for _, w := range doc {
			col := m.phiT[w*k : (w+1)*k]
			s := 0.0
			for t, p := range col {
				r[t] = dst[t] * p
				s += r[t]
			}
			is := 1 / s
			for t := range r {
				acc[t] += r[t] * is
			}
		}
		change := 0.0
		for t := range dst {
			x := acc[t] * inv
			change = math.Max(change, math.Abs(x-dst[t]))
			dst[t] = x
		}
		if change < tol {
			break
		}
	}
}
