package topic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/taglens/taglens/ml/internal/defaults"
)

// Default hyper-parameters of LDA. See LDAConfig for why they suit tag documents.
const (
	DefaultAlpha      = 0.1
	DefaultBeta       = 0.01
	DefaultIterations = 300
	DefaultBurnIn     = 200
	DefaultSampleLag  = 10
	DefaultLogLikLag  = 10
	// Fold-in (InferTo) defaults: sweeps discarded, then sweeps averaged.
	DefaultFoldBurnIn  = 10
	DefaultFoldSamples = 20
)

// ErrNoTokens is returned when a corpus holds no term at all.
var ErrNoTokens = errors.New("no tokens in corpus")

// LDAConfig holds the tunables of FitLDA. The zero value means: choose K
// automatically (SelectK) and use every default below.
type LDAConfig struct {
	// K is the number of topics |Φ|. Zero chooses it with SelectK over KGrid.
	K int

	// Alpha is the symmetric Dirichlet prior B⁰ on a document's topic
	// proportions; zero means DefaultAlpha = 0.1. Griffiths & Steyvers' 50/K
	// assumes documents of hundreds of words: with tag documents of 2-30 terms
	// it would outweigh the document (50 pseudo-counts against ~5 tokens) and
	// flatten every context vector towards uniform. α = 0.1 keeps the prior
	// mass (0.1·K, 2 for K = 20) below a typical document's length, so the
	// context is data-driven and sparse (a tag set usually describes one or two
	// concepts).
	Alpha float64

	// Beta is the symmetric Dirichlet prior B on a topic's term distribution;
	// zero means DefaultBeta = 0.01 (sharp topics; small enough that rare tags,
	// which the paper keeps, do not smear over all topics).
	Beta float64

	// Iterations is the number of Gibbs sweeps over the corpus (default 300).
	Iterations int
	// BurnIn sweeps are discarded before topic-term samples are averaged
	// (default 200; clamped to Iterations-1).
	BurnIn int
	// SampleLag is the number of sweeps between averaged samples (default 10).
	SampleLag int
	// LogLikLag is the number of sweeps between log-likelihood evaluations
	// reported to the progress callback (default 10; the last sweep always).
	LogLikLag int

	// FoldBurnIn and FoldSamples set the fold-in sampler used by InferTo
	// (defaults DefaultFoldBurnIn, DefaultFoldSamples).
	FoldBurnIn, FoldSamples int

	// Selection of K when K == 0 (see SelectK).
	Select SelectConfig
}

func (c LDAConfig) withDefaults() LDAConfig {
	defaults.Positive(&c.Alpha, DefaultAlpha)
	defaults.Positive(&c.Beta, DefaultBeta)
	defaults.Positive(&c.Iterations, DefaultIterations)
	defaults.Positive(&c.BurnIn, DefaultBurnIn)
	if c.BurnIn >= c.Iterations {
		c.BurnIn = c.Iterations - 1
	}
	defaults.Positive(&c.SampleLag, DefaultSampleLag)
	defaults.Positive(&c.LogLikLag, DefaultLogLikLag)
	defaults.Positive(&c.FoldBurnIn, DefaultFoldBurnIn)
	defaults.Positive(&c.FoldSamples, DefaultFoldSamples)
	return c
}

// LDA is a fitted latent Dirichlet allocation model (Blei, Ng & Jordan 2003)
// with fixed topics. It is safe for concurrent use once fitted: InferTo,
// InferVBTo, TermTopics and Perplexity only read it.
type LDA struct {
	K, V        int
	Alpha, Beta float64

	// Phi is the K×V row-major topic-term matrix: Phi[k*V+w] = p(τ_w|φ_k),
	// the posterior mean (n_kw+β)/(n_k+Vβ) averaged over the kept samples.
	// Every entry is positive and each row sums to 1.
	Phi []float64

	// TopicMass[k] is the fraction of training tokens assigned to topic k
	// (averaged over the kept samples), an estimate of p(φ_k).
	TopicMass []float64

	// FoldBurnIn and FoldSamples configure the fold-in sampler of InferTo.
	FoldBurnIn, FoldSamples int

	// LogLik is log p(w|z) of the final training state (Griffiths & Steyvers
	// 2004, Eq. 2), zero for a model built by NewLDA.
	LogLik float64

	// Selection records the perplexity of every K tried when K was chosen
	// automatically (nil otherwise).
	Selection []KScore

	phiT []float64 // V×K: phiT[w*K+k] = Phi[k*V+w]
	pool sync.Pool // *foldWorkspace
}

// NewLDA builds a model from saved parameters (e.g. read from a model file).
// phi is K×V row-major p(τ_w|φ_k) and is copied. It returns an error when the
// shapes disagree or phi has a non-positive or non-finite entry.
func NewLDA(k, v int, alpha, beta float64, phi []float64) (*LDA, error) {
	if k <= 0 || v <= 0 {
		return nil, fmt.Errorf("topic: new LDA: K=%d, V=%d must be positive", k, v)
	}
	if len(phi) != k*v {
		return nil, fmt.Errorf("topic: new LDA: len(phi)=%d, want K·V=%d", len(phi), k*v)
	}
	if !(alpha > 0) || !(beta > 0) {
		return nil, fmt.Errorf("topic: new LDA: alpha=%v, beta=%v must be positive", alpha, beta)
	}
	for i, p := range phi {
		if !(p > 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("topic: new LDA: phi[%d]=%v is not a positive probability", i, p)
		}
	}
	m := &LDA{K: k, V: v, Alpha: alpha, Beta: beta, Phi: append([]float64(nil), phi...),
		FoldBurnIn: DefaultFoldBurnIn, FoldSamples: DefaultFoldSamples}
	m.TopicMass = make([]float64, k)
	for i := range m.TopicMass {
		m.TopicMass[i] = 1 / float64(k)
	}
	m.init()
	return m, nil
}

func (m *LDA) init() {
	m.phiT = make([]float64, m.V*m.K)
	for k := 0; k < m.K; k++ {
		row := m.Phi[k*m.V : (k+1)*m.V]
		for w, p := range row {
			m.phiT[w*m.K+k] = p
		}
	}
}

// NumTopics returns K.
func (m *LDA) NumTopics() int { return m.K }

// VocabSize returns V.
func (m *LDA) VocabSize() int { return m.V }

// TermTopics returns the K values p(τ_w|φ_k), k = 0..K-1, of term w. The
// caller must not modify the slice. It panics if w is out of range.
func (m *LDA) TermTopics(w int) []float64 { return m.phiT[w*m.K : (w+1)*m.K] }

// FitLDA fits LDA to docs (term indices in [0, V)) by collapsed Gibbs sampling
// (Griffiths & Steyvers 2004) with the SparseLDA bucket decomposition (Yao,
// Mimno & McCallum 2009), so that a sweep costs about O(tokens · (topics per
// term + topics per document)) rather than O(tokens · K).
//
// When cfg.K is zero the number of topics is chosen first by SelectK (on a
// held-out split of docs drawn from rng), then the final model is fitted on all
// of docs. progress, when not nil, is called every cfg.LogLikLag sweeps and
// after the last one with the sweep number (1-based) and log p(w|z). Fitting
// stops with ctx.Err() when ctx is cancelled. Empty documents are allowed and
// ignored. The result depends only on the inputs and the state of rng.
func FitLDA(ctx context.Context, docs [][]int, v int, cfg LDAConfig, rng *rand.Rand, progress func(iter int, logLik float64)) (*LDA, error) {
	if v <= 0 {
		return nil, fmt.Errorf("topic: fit LDA: vocabulary size %d", v)
	}
	if err := checkDocs(docs, v); err != nil {
		return nil, fmt.Errorf("topic: fit LDA: %w", err)
	}
	cfg = cfg.withDefaults()
	var sel []KScore
	if cfg.K == 0 {
		k, scores, err := SelectK(ctx, docs, v, cfg, rng)
		if err != nil {
			return nil, fmt.Errorf("topic: fit LDA: %w", err)
		}
		cfg.K, sel = k, scores
	}
	if cfg.K < 0 {
		return nil, fmt.Errorf("topic: fit LDA: K=%d", cfg.K)
	}
	s, err := newSampler(docs, v, cfg, rng)
	if err != nil {
		return nil, fmt.Errorf("topic: fit LDA: %w", err)
	}
	m, err := s.run(ctx, progress)
	if err != nil {
		return nil, fmt.Errorf("topic: fit LDA: %w", err)
	}
	m.Selection = sel
	return m, nil
}

func checkDocs(docs [][]int, v int) error {
	n := 0
	for i, d := range docs {
		for _, w := range d {
			if w < 0 || w >= v {
				return fmt.Errorf("document %d: term index %d outside vocabulary of %d", i, w, v)
			}
		}
		n += len(d)
	}
	if n == 0 {
		return ErrNoTokens
	}
	return nil
}

// sampler is the state of the SparseLDA collapsed Gibbs sampler.
//
// Conditional of token i (term w in document d), Griffiths & Steyvers 2004:
//
//	p(z_i=k | z_-i, w) ∝ (n_dk + α)(n_kw + β)/(n_k + Vβ)
//
// split as in Yao, Mimno & McCallum 2009 into three buckets
//
//	s_k = αβ/(n_k+Vβ)            (dense, total mass small)
//	r_k = n_dk β/(n_k+Vβ)        (non-zero only for the document's topics)
//	q_k = (α+n_dk) n_kw/(n_k+Vβ) (non-zero only for the term's topics)
type sampler struct {
	cfg   LDAConfig
	rng   *rand.Rand
	k, v  int
	docs  [][]int
	z     [][]int32 // topic of each token, same shape as docs
	nkw   []int32   // V×K counts
	nk    []int32   // K
	wTop  []int32   // per-term list of topics with n_kw > 0 (flat storage)
	wOff  []int     // start of term w's list in wTop
	wLen  []int32   // length of term w's list
	ndk   []int32   // K, the current document's counts
	dTop  []int32   // the current document's topics with n_dk > 0
	denom []float64 // 1/(n_k+Vβ)
	coef  []float64 // (α+n_dk)/(n_k+Vβ) for the current document
	qbuf  []float64
	acc   []float64 // K×V sum of sampled φ
	mass  []float64 // K sum of sampled n_k/N
	nacc  int
	ntok  int
}

func newSampler(docs [][]int, v int, cfg LDAConfig, rng *rand.Rand) (*sampler, error) {
	k := cfg.K
	s := &sampler{cfg: cfg, rng: rng, k: k, v: v, docs: docs}
	s.z = make([][]int32, len(docs))
	freq := make([]int, v)
	total := 0
	for _, d := range docs {
		for _, w := range d {
			freq[w]++
		}
		total += len(d)
	}
	if total == 0 {
		return nil, ErrNoTokens
	}
	s.ntok = total
	flat := make([]int32, total)
	off := 0
	for i, d := range docs {
		s.z[i] = flat[off : off+len(d) : off+len(d)]
		off += len(d)
	}
	s.nkw = make([]int32, v*k)
	s.nk = make([]int32, k)
	s.wOff = make([]int, v+1)
	for w := 0; w < v; w++ {
		s.wOff[w+1] = s.wOff[w] + min(freq[w], k)
	}
	s.wTop = make([]int32, s.wOff[v])
	s.wLen = make([]int32, v)
	s.ndk = make([]int32, k)
	s.dTop = make([]int32, 0, k)
	s.denom = make([]float64, k)
	s.coef = make([]float64, k)
	s.qbuf = make([]float64, k)
	s.acc = make([]float64, k*v)
	s.mass = make([]float64, k)
	for i, d := range docs {
		for j, w := range d {
			t := int32(rng.IntN(k))
			s.z[i][j] = t
			s.incWord(w, t)
		}
	}
	return s, nil
}

func (s *sampler) incWord(w int, t int32) {
	c := &s.nkw[w*s.k+int(t)]
	if *c == 0 {
		s.wTop[s.wOff[w]+int(s.wLen[w])] = t
		s.wLen[w]++
	}
	*c++
	s.nk[t]++
}

func (s *sampler) decWord(w int, t int32) {
	c := &s.nkw[w*s.k+int(t)]
	*c--
	if *c == 0 {
		list := s.wTop[s.wOff[w] : s.wOff[w]+int(s.wLen[w])]
		for i, u := range list {
			if u == t {
				list[i] = list[len(list)-1]
				break
			}
		}
		s.wLen[w]--
	}
	s.nk[t]--
}

func (s *sampler) run(ctx context.Context, progress func(int, float64)) (*LDA, error) {
	cfg := s.cfg
	for it := 1; it <= cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.sweep()
		if it > cfg.BurnIn && (it-cfg.BurnIn)%cfg.SampleLag == 0 || it == cfg.Iterations {
			s.accumulate()
		}
		if progress != nil && (it%cfg.LogLikLag == 0 || it == cfg.Iterations) {
			progress(it, s.logLik())
		}
	}
	m := &LDA{K: s.k, V: s.v, Alpha: cfg.Alpha, Beta: cfg.Beta,
		FoldBurnIn: cfg.FoldBurnIn, FoldSamples: cfg.FoldSamples}
	inv := 1 / float64(s.nacc)
	m.Phi = s.acc
	for i := range m.Phi {
		m.Phi[i] *= inv
	}
	m.TopicMass = s.mass
	for i := range m.TopicMass {
		m.TopicMass[i] *= inv
	}
	m.LogLik = s.logLik()
	m.init()
	return m, nil
}

// accumulate adds the posterior mean topic-term distributions of the current
// state, (n_kw+β)/(n_k+Vβ), to the running average.
func (s *sampler) accumulate() {
	vb := float64(s.v) * s.cfg.Beta
	for k := 0; k < s.k; k++ {
		d := 1 / (float64(s.nk[k]) + vb)
		row := s.acc[k*s.v : (k+1)*s.v]
		for w := range row {
			row[w] += (float64(s.nkw[w*s.k+k]) + s.cfg.Beta) * d
		}
		s.mass[k] += float64(s.nk[k]) / float64(s.ntok)
	}
	s.nacc++
}

// logLik returns log p(w|z) = K[lgΓ(Vβ) − V lgΓ(β)] + Σ_k [Σ_w lgΓ(n_kw+β) − lgΓ(n_k+Vβ)]
// (Griffiths & Steyvers 2004, Eq. 2), summing only non-zero counts (a zero
// count contributes lgΓ(β), folded into the constant).
func (s *sampler) logLik() float64 {
	b := s.cfg.Beta
	vb := float64(s.v) * b
	lgb, _ := math.Lgamma(b)
	lgvb, _ := math.Lgamma(vb)
	ll := float64(s.k) * lgvb
	nnz := 0
	for w := 0; w < s.v; w++ {
		for _, t := range s.wTop[s.wOff[w] : s.wOff[w]+int(s.wLen[w])] {
			g, _ := math.Lgamma(float64(s.nkw[w*s.k+int(t)]) + b)
			ll += g
			nnz++
		}
	}
	ll += float64(nnz-s.k*s.v) * lgb
	for k := 0; k < s.k; k++ {
		g, _ := math.Lgamma(float64(s.nk[k]) + vb)
		ll -= g
	}
	return ll
}

// sweep resamples every token once, documents in order.
// Kept in one function: the loop's count tables and running sums are shared by
// every step of the sweep, and it is the sampler's innermost loop.
func (s *sampler) sweep() {
	alpha, beta := s.cfg.Alpha, s.cfg.Beta
	vb := float64(s.v) * beta
	ab := alpha * beta
	// Recompute the smoothing bucket exactly once per sweep (no drift).
	sMass := 0.0
	for k := 0; k < s.k; k++ {
		s.denom[k] = 1 / (float64(s.nk[k]) + vb)
		s.coef[k] = alpha * s.denom[k]
		sMass += ab * s.denom[k]
	}
	for di, doc := range s.docs {
		if len(doc) == 0 {
			continue
		}
		zd := s.z[di]
		s.dTop = s.dTop[:0]
		for _, t := range zd {
			if s.ndk[t] == 0 {
				s.dTop = append(s.dTop, t)
			}
			s.ndk[t]++
		}
		rMass := 0.0
		for _, t := range s.dTop {
			rMass += float64(s.ndk[t]) * beta * s.denom[t]
			s.coef[t] = (alpha + float64(s.ndk[t])) * s.denom[t]
		}
		for j, w := range doc {
			t := zd[j]
			// Remove token j.
			sMass -= ab * s.denom[t]
			rMass -= float64(s.ndk[t]) * beta * s.denom[t]
			s.decWord(w, t)
			s.ndk[t]--
			if s.ndk[t] == 0 {
				s.removeDocTopic(t)
			}
			s.denom[t] = 1 / (float64(s.nk[t]) + vb)
			sMass += ab * s.denom[t]
			rMass += float64(s.ndk[t]) * beta * s.denom[t]
			s.coef[t] = (alpha + float64(s.ndk[t])) * s.denom[t]

			// q bucket over the term's topics.
			base := w * s.k
			list := s.wTop[s.wOff[w] : s.wOff[w]+int(s.wLen[w])]
			qMass := 0.0
			for i, u := range list {
				q := s.coef[u] * float64(s.nkw[base+int(u)])
				s.qbuf[i] = q
				qMass += q
			}
			u := s.rng.Float64() * (sMass + rMass + qMass)
			nt := int32(-1)
			if u < qMass {
				for i, q := range s.qbuf[:len(list)] {
					u -= q
					if u <= 0 {
						nt = list[i]
						break
					}
				}
				if nt < 0 {
					nt = list[len(list)-1]
				}
			} else if u -= qMass; u < rMass {
				for _, d := range s.dTop {
					u -= float64(s.ndk[d]) * beta * s.denom[d]
					if u <= 0 {
						nt = d
						break
					}
				}
				if nt < 0 {
					nt = s.dTop[len(s.dTop)-1]
				}
			} else {
				u -= rMass
				for k := 0; k < s.k; k++ {
					u -= ab * s.denom[k]
					if u <= 0 {
						nt = int32(k)
						break
					}
				}
				if nt < 0 {
					nt = int32(s.k - 1)
				}
			}

			// Add token j to topic nt.
			t = nt
			sMass -= ab * s.denom[t]
			rMass -= float64(s.ndk[t]) * beta * s.denom[t]
			s.incWord(w, t)
			if s.ndk[t] == 0 {
				s.dTop = append(s.dTop, t)
			}
			s.ndk[t]++
			s.denom[t] = 1 / (float64(s.nk[t]) + vb)
			sMass += ab * s.denom[t]
			rMass += float64(s.ndk[t]) * beta * s.denom[t]
			s.coef[t] = (alpha + float64(s.ndk[t])) * s.denom[t]
			zd[j] = t
		}
		// Reset the document's state.
		for _, t := range s.dTop {
			s.ndk[t] = 0
			s.coef[t] = alpha * s.denom[t]
		}
	}
}

func (s *sampler) removeDocTopic(t int32) {
	for i, u := range s.dTop {
		if u == t {
			s.dTop[i] = s.dTop[len(s.dTop)-1]
			s.dTop = s.dTop[:len(s.dTop)-1]
			return
		}
	}
}
