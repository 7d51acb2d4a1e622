package baselines

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// CRBMInference selects how CRBM.Distances estimates the visible activations.
type CRBMInference int

const (
	// CRBMGibbs (the default) runs Gibbs chains as the paper does (§6.2.5):
	// Trials chains, each started from the one-hot query vector, alternating
	// h ~ p(h|v) and v ~ p(v|h, a) for Steps steps with the query unit clamped
	// on. The activation of unit j is the average of p(v_j = 1|h, a) over the
	// steps after BurnIn of every chain (a Rao-Blackwellised estimate of the
	// same expectation). The paper's setting is Trials = Steps = 100, BurnIn =
	// 99 (the last step of each chain); the default, Trials 10 × Steps 20 with
	// BurnIn 5, costs 50 times less and averages 150 correlated samples instead
	// of 100 independent ones; TestCRBMDefaultMatchesPaper checks that it
	// differs from the paper's estimate no more than two runs of the paper's
	// procedure differ from each other.
	CRBMGibbs CRBMInference = iota
	// CRBMMeanField iterates the mean-field fixed point h = σ(c + Uᵀv),
	// v = σ(d + W a + U h) with the query unit clamped at 1, from the one-hot
	// query vector, until no unit moves by more than 1e-6 (at most
	// MeanFieldIter rounds). Deterministic and cheaper, but mode-seeking: it
	// can miss terms that the chains visit (e.g. a polysemous term), so it is
	// not the default. (A cheaper chain setting, 5 × 15 with BurnIn 3, failed
	// TestCRBMDefaultMatchesPaper.)
	CRBMMeanField
)

// CRBMConfig holds the tunables of TrainCRBM. Zero values mean the defaults.
type CRBMConfig struct {
	// Hidden is the number of binomial hidden units (default 10, the CE
	// dimension, as in the paper).
	Hidden int
	// LearningRate (default 0.1) and Momentum (default 0.5) of contrastive
	// divergence, the paper's values (§6.2.5).
	LearningRate, Momentum float64
	// Epochs over the training documents (default 30).
	Epochs int
	// BatchSize is the number of documents per update of the shared weights
	// U, d, c (default 10).
	BatchSize int
	// Inference method of Distances (default CRBMGibbs).
	Inference CRBMInference
	// MeanFieldIter bounds the mean-field rounds (default 50).
	MeanFieldIter int
	// Trials, Steps and BurnIn of CRBMGibbs (defaults 10, 20 and 5; the
	// paper's procedure is 100, 100 and 99). BurnIn is clamped to Steps-1.
	Trials, Steps, BurnIn int
}

func (c CRBMConfig) withDefaults() CRBMConfig {
	if c.Hidden <= 0 {
		c.Hidden = 10
	}
	if c.LearningRate <= 0 {
		c.LearningRate = 0.1
	}
	if c.Momentum <= 0 {
		c.Momentum = 0.5
	}
	if c.Epochs <= 0 {
		c.Epochs = 30
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 10
	}
	if c.MeanFieldIter <= 0 {
		c.MeanFieldIter = 50
	}
	if c.Trials <= 0 {
		c.Trials = 10
	}
	if c.Steps <= 0 {
		c.Steps = 20
	}
	if c.BurnIn <= 0 {
		c.BurnIn = 5
	}
	if c.BurnIn >= c.Steps {
		c.BurnIn = c.Steps - 1
	}
	return c
}

// CRBM is the conditional restricted Boltzmann machine baseline of Mandel et
// al. (2011) (paper §2.3, §6.2.5) with energy
//
//	E(v, h, a) = −hᵀUᵀv − vᵀW a − dᵀv − cᵀh
//
// (U is stored V×H here, the transpose of the paper's H×V matrix): binary
// visible units v, one per term (the document's bag of words), binary hidden
// units h, and the condition a, the one-hot vector of the training document
// (W is V×|Δ|). It is trained by CD-1; the relatedness of term j to query q in
// document δ is the average activation of visible unit j with unit q clamped
// on and δ's condition unit set, so the distance is −activation.
//
// Only training documents have a condition unit. Knows reports whether a
// context is one: a context is matched to training documents by content (its
// set of terms, order and repeats ignored); when several training documents
// have the same set of terms, their condition columns are averaged (the
// condition vector puts weight 1/n on each). For an unknown context Distances
// uses no condition (a = 0); the evaluator should call Knows and evaluate
// CRBM on training documents only, as the paper did. Safe for concurrent use.
type CRBM struct {
	v, h int
	cfg  CRBMConfig
	u    []float64 // V×H
	d    []float64 // V visible biases
	c    []float64 // H hidden biases
	// cond holds one averaged condition column (V float32) per distinct
	// training term set; index maps the set's key to its column.
	cond  []float32
	index map[string]int
	pool  sync.Pool // *crbmWS
}

type crbmWS struct {
	vis, h, acc, hs []float64
	key             []byte
	sorted          []int
}

// TrainCRBM trains a CRBM on the training documents docs (term indices in
// [0, v)) by one-step contrastive divergence (Hinton 2002) from weights drawn
// with seed: U ~ N(0, 0.01²), d_j = log(p_j/(1−p_j)) of the term's document
// frequency p_j, c = 0, W = 0. For each mini-batch of documents (in a seeded
// random order each epoch), with v0 = BoW(δ), p = probabilities:
//
//	h0 = σ(c + Uᵀv0), sampled;  v1 = σ(d + W a_δ + U h0);  h1 = σ(c + Uᵀv1)
//	ΔU = ⟨v0 h0ᵀ − v1 h1ᵀ⟩, Δd = ⟨v0 − v1⟩, Δc = ⟨h0 − h1⟩  (batch means, with momentum)
//	ΔW_δ = v0 − v1  (per document, no momentum: each column has one example)
//
// progress, when not nil, is called after each epoch with the mean squared
// reconstruction error Σ_j (v0_j − v1_j)² per document. Empty documents are
// skipped (they have no condition unit). Memory is about 4·V·|distinct term
// sets| + 4·V·|Δ| bytes during training (W in float32).
func TrainCRBM(ctx context.Context, docs [][]int, v int, cfg CRBMConfig, seed uint64, progress func(epoch int, reconErr float64)) (*CRBM, error) {
	cfg = cfg.withDefaults()
	if v <= 0 {
		return nil, fmt.Errorf("baselines: CRBM: vocabulary size %d", v)
	}
	var train [][]int
	for i, doc := range docs {
		for _, w := range doc {
			if w < 0 || w >= v {
				return nil, fmt.Errorf("baselines: CRBM: document %d: term %d outside vocabulary of %d", i, w, v)
			}
		}
		if len(doc) > 0 {
			train = append(train, uniqueSorted(doc))
		}
	}
	if len(train) == 0 {
		return nil, fmt.Errorf("baselines: CRBM: no non-empty training document")
	}
	rng := rand.New(rand.NewPCG(seed, 0xc4b3))
	nh := cfg.Hidden
	m := &CRBM{v: v, h: nh, cfg: cfg, u: make([]float64, v*nh), d: make([]float64, v), c: make([]float64, nh)}
	for i := range m.u {
		m.u[i] = 0.01 * rng.NormFloat64()
	}
	df := make([]float64, v)
	for _, doc := range train {
		for _, w := range doc {
			df[w]++
		}
	}
	for j := range m.d {
		p := (df[j] + 0.5) / (float64(len(train)) + 1)
		m.d[j] = math.Log(p / (1 - p))
	}
	w := make([]float32, len(train)*v)

	gu, gd, gc := make([]float64, v*nh), make([]float64, v), make([]float64, nh)
	vu, vd, vc := make([]float64, v*nh), make([]float64, v), make([]float64, nh)
	h0p, h0, h1 := make([]float64, nh), make([]float64, nh), make([]float64, nh)
	v1 := make([]float64, v)
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	lr, mom := cfg.LearningRate, cfg.Momentum
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("baselines: CRBM: %w", err)
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		recon := 0.0
		for start := 0; start < len(order); start += cfg.BatchSize {
			batch := order[start:min(start+cfg.BatchSize, len(order))]
			clear(gu)
			clear(gd)
			clear(gc)
			for _, di := range batch {
				doc := train[di]
				wd := w[di*v : (di+1)*v]
				// Positive phase: h0 = σ(c + Σ_{j∈δ} U_j).
				copy(h0p, m.c)
				for _, j := range doc {
					for k, x := range m.u[j*nh : (j+1)*nh] {
						h0p[k] += x
					}
				}
				for k := range h0p {
					h0p[k] = sigmoid(h0p[k])
					h0[k] = 0
					if rng.Float64() < h0p[k] {
						h0[k] = 1
					}
				}
				// Reconstruction v1 = σ(d + W_δ + U h0) and h1 = σ(c + Uᵀv1).
				copy(h1, m.c)
				for j := 0; j < v; j++ {
					row := m.u[j*nh : (j+1)*nh]
					s := m.d[j] + float64(wd[j])
					for k, x := range row {
						s += x * h0[k]
					}
					v1[j] = sigmoid(s)
					for k, x := range row {
						h1[k] += x * v1[j]
					}
				}
				for k := range h1 {
					h1[k] = sigmoid(h1[k])
				}
				// Negative statistics over all units, positive ones over δ's terms.
				for j := 0; j < v; j++ {
					row := gu[j*nh : (j+1)*nh]
					for k := range row {
						row[k] -= v1[j] * h1[k]
					}
					gd[j] -= v1[j]
					wd[j] -= float32(lr * v1[j])
					recon += v1[j] * v1[j]
				}
				for _, j := range doc {
					row := gu[j*nh : (j+1)*nh]
					for k := range row {
						row[k] += h0p[k]
					}
					gd[j]++
					wd[j] += float32(lr)
					recon += 1 - 2*v1[j]
				}
				for k := range gc {
					gc[k] += h0p[k] - h1[k]
				}
			}
			scale := lr / float64(len(batch))
			for i := range m.u {
				vu[i] = mom*vu[i] + scale*gu[i]
				m.u[i] += vu[i]
			}
			for i := range m.d {
				vd[i] = mom*vd[i] + scale*gd[i]
				m.d[i] += vd[i]
			}
			for i := range m.c {
				vc[i] = mom*vc[i] + scale*gc[i]
				m.c[i] += vc[i]
			}
		}
		if progress != nil {
			progress(epoch, recon/float64(len(train)))
		}
	}
	// Collapse W into one averaged condition column per distinct term set.
	m.index = make(map[string]int)
	var counts []int
	var key []byte
	for di, doc := range train {
		key = docKey(key[:0], doc)
		ci, ok := m.index[string(key)]
		if !ok {
			ci = len(counts)
			m.index[string(key)] = ci
			counts = append(counts, 0)
			m.cond = append(m.cond, make([]float32, v)...)
		}
		counts[ci]++
		col := m.cond[ci*v : (ci+1)*v]
		for j, x := range w[di*v : (di+1)*v] {
			col[j] += x
		}
	}
	for ci, n := range counts {
		if n > 1 {
			col := m.cond[ci*v : (ci+1)*v]
			for j := range col {
				col[j] /= float32(n)
			}
		}
	}
	return m, nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// uniqueSorted returns the distinct terms of doc in increasing order (a copy).
func uniqueSorted(doc []int) []int {
	s := slices.Clone(doc)
	slices.Sort(s)
	return slices.Compact(s)
}

// docKey appends the content key of a sorted, duplicate-free term list.
func docKey(dst []byte, sorted []int) []byte {
	for _, w := range sorted {
		dst = binary.AppendUvarint(dst, uint64(w))
	}
	return dst
}

// Name returns "crbm".
func (m *CRBM) Name() string { return "crbm" }

// Contextual returns true: the condition unit is the context document.
func (m *CRBM) Contextual() bool { return true }

// VocabSize returns V.
func (m *CRBM) VocabSize() int { return m.v }

// Hidden returns the number of hidden units.
func (m *CRBM) Hidden() int { return m.h }

func (m *CRBM) ws() *crbmWS {
	if ws, ok := m.pool.Get().(*crbmWS); ok {
		return ws
	}
	return &crbmWS{vis: make([]float64, m.v), acc: make([]float64, m.v), h: make([]float64, m.h), hs: make([]float64, m.h)}
}

// condition returns the condition column of ctx, or nil when ctx is not a
// training document's term set.
func (m *CRBM) condition(ws *crbmWS, ctx []int) []float32 {
	ws.sorted = append(ws.sorted[:0], ctx...)
	slices.Sort(ws.sorted)
	ws.sorted = slices.Compact(ws.sorted)
	ws.key = docKey(ws.key[:0], ws.sorted)
	ci, ok := m.index[string(ws.key)]
	if !ok {
		return nil
	}
	return m.cond[ci*m.v : (ci+1)*m.v]
}

// Knows reports whether ctx (as a set of terms) is the term set of a training
// document, i.e. whether it has a condition unit. Safe for concurrent use.
func (m *CRBM) Knows(ctx []int) bool {
	ws := m.ws()
	defer m.pool.Put(ws)
	return len(ctx) > 0 && m.condition(ws, ctx) != nil
}

// Distances fills dst[i*V+j] with −(average activation of visible unit j) when
// unit queries[i] is clamped on and ctx's condition is set (see CRBM, and
// CRBMConfig.Inference for how the average is computed). rng drives the
// Gibbs chains (unused by CRBMMeanField). It panics if len(dst) != len(queries)·V or a query is out of range.
func (m *CRBM) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	v := m.v
	if len(dst) != len(queries)*v {
		panic(fmt.Sprintf("baselines: CRBM.Distances: len(dst) = %d, want %d", len(dst), len(queries)*v))
	}
	if len(queries) == 0 {
		return
	}
	ws := m.ws()
	defer m.pool.Put(ws)
	cond := m.condition(ws, ctx)
	for i, q := range queries {
		if q < 0 || q >= v {
			panic("baselines: CRBM.Distances: query out of range")
		}
		row := dst[i*v : (i+1)*v]
		if m.cfg.Inference == CRBMGibbs {
			m.gibbs(ws, cond, q, rng, row)
		} else {
			m.meanField(ws, cond, q, row)
		}
		for j := range row {
			row[j] = -row[j]
		}
	}
}

// visibleProbs sets out[j] = σ(d_j + cond_j + U_j·h) and clamps out[q] = 1.
func (m *CRBM) visibleProbs(out []float64, cond []float32, h []float64, q int) {
	nh := m.h
	for j := range out {
		s := m.d[j]
		if cond != nil {
			s += float64(cond[j])
		}
		for k, x := range m.u[j*nh : (j+1)*nh] {
			s += x * h[k]
		}
		out[j] = sigmoid(s)
	}
	out[q] = 1
}

// hiddenProbs sets h = σ(c + Uᵀv).
func (m *CRBM) hiddenProbs(h, vis []float64) {
	nh := m.h
	copy(h, m.c)
	for j, x := range vis {
		if x == 0 {
			continue
		}
		for k, u := range m.u[j*nh : (j+1)*nh] {
			h[k] += u * x
		}
	}
	for k := range h {
		h[k] = sigmoid(h[k])
	}
}

// meanField writes the mean-field visible activations into out.
func (m *CRBM) meanField(ws *crbmWS, cond []float32, q int, out []float64) {
	vis := ws.vis
	clear(vis)
	vis[q] = 1
	for it := 0; it < m.cfg.MeanFieldIter; it++ {
		m.hiddenProbs(ws.h, vis)
		m.visibleProbs(out, cond, ws.h, q)
		change := 0.0
		for j, x := range out {
			change = math.Max(change, math.Abs(x-vis[j]))
		}
		copy(vis, out)
		if change < 1e-6 {
			break
		}
	}
}

// gibbs writes the chain average into out.
func (m *CRBM) gibbs(ws *crbmWS, cond []float32, q int, rng *rand.Rand, out []float64) {
	vis, acc := ws.vis, ws.acc
	clear(acc)
	n := 0
	for trial := 0; trial < m.cfg.Trials; trial++ {
		clear(vis)
		vis[q] = 1
		for step := 0; step < m.cfg.Steps; step++ {
			m.hiddenProbs(ws.h, vis)
			for k, p := range ws.h {
				ws.hs[k] = 0
				if rng.Float64() < p {
					ws.hs[k] = 1
				}
			}
			m.visibleProbs(out, cond, ws.hs, q)
			if step >= m.cfg.BurnIn {
				for j, p := range out {
					acc[j] += p
				}
				n++
			}
			if step == m.cfg.Steps-1 {
				break
			}
			for j, p := range out {
				vis[j] = 0
				if rng.Float64() < p {
					vis[j] = 1
				}
			}
			vis[q] = 1
		}
	}
	inv := 1 / float64(n)
	for j := range out {
		out[j] = acc[j] * inv
	}
}
