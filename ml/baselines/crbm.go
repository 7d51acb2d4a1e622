package baselines

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
)

// CRBMInference selects how CRBM.Distances estimates the visible activations.
type CRBMInference int

const (
	// CRBMGibbs (the default) runs Gibbs chains as the paper does (§6.2.5):
	// Trials chains, each started from the one-hot query vector v = e_q,
	// alternating h ~ p(h|v) and v ~ p(v|h, a) for Steps steps. The query
	// unit starts the chain and is then resampled like every other unit
	// (unless ClampQuery). The activation of unit j is the average of
	// p(v_j = 1|h, a) over the steps after BurnIn of every chain (a
	// Rao-Blackwellised estimate of the same expectation). The paper's
	// setting is Trials = Steps = 100, BurnIn = 99 (the last step of each
	// chain); the default, Trials 10 × Steps 100 with BurnIn 90, costs ten
	// times less: the chains are as long as the paper's and average the last
	// ten steps instead of the last one (the expected activations at steps
	// 90-99 and at step 99 differ little: TestCRBMDefaultMatchesPaper; on
	// CAL500's training documents priming MAP 0.6175 against the paper's
	// procedure's 0.6174, seed 1).
	CRBMGibbs CRBMInference = iota
	// CRBMMeanField iterates the mean-field fixed point h = σ(c + Uᵀv),
	// v = σ(d + W a + U h) from the one-hot query vector (the query unit
	// clamped at 1 when ClampQuery), until no unit moves by more than 1e-6
	// (at most MeanFieldIter rounds). Deterministic and cheaper, but
	// mode-seeking: it can miss terms that the chains visit (e.g. a
	// polysemous term), so it is not the default.
	CRBMMeanField
)

// CRBMConfig holds the tunables of TrainCRBM. Zero values mean the defaults.
//
// The training defaults are those of MatRBM, the package the paper's CRBM is
// based on (§6.2.5: "the recommended learning rate of 0.1 with moment 0.5 ...
// based on the MatRBM package"; its rbmFit defaults are eta 0.1, momentum 0.5,
// maxepoch 50, batchsize 100, penalty 2e-4): every parameter, the condition
// weights W included, moves by the batch mean of its CD gradient with
// momentum, and the weights U and W decay by the penalty; the weights returned
// are the average of the iterates of the last five epochs (MatRBM's avglast).
type CRBMConfig struct {
	// Hidden is the number of binomial hidden units (default 10, the CE
	// dimension, as in the paper).
	Hidden int
	// LearningRate (default 0.1) and Momentum (default 0.5) of contrastive
	// divergence, the paper's values (§6.2.5).
	LearningRate, Momentum float64
	// Penalty is the L2 weight decay of U and W (default 2e-4, MatRBM's; a
	// negative value means none).
	Penalty float64
	// ConditionStep multiplies the learning rate of the condition weights W
	// (default 1: MatRBM's update). With ConditionStep = BatchSize each
	// column moves by the document's own gradient, as an earlier version of
	// TrainCRBM did; the tests use it to train a CRBM whose condition is
	// strong enough to separate a polysemous term's senses.
	ConditionStep float64
	// Epochs over the training documents (default 50, MatRBM's).
	Epochs int
	// AverageLast is the number of final epochs whose iterates (the
	// parameters after every batch) are averaged into the returned model
	// (default 5, MatRBM's avglast; a negative value means none: the last
	// iterate). It is capped at Epochs.
	AverageLast int
	// BatchSize is the number of documents per update (default 100, MatRBM's).
	BatchSize int
	// Inference method of Distances (default CRBMGibbs).
	Inference CRBMInference
	// MeanFieldIter bounds the mean-field rounds (default 50).
	MeanFieldIter int
	// Trials, Steps and BurnIn of CRBMGibbs (defaults 10, 100 and 90; the
	// paper's procedure is 100, 100 and 99). BurnIn is clamped to Steps-1.
	Trials, Steps, BurnIn int
	// ClampQuery keeps the query unit on in every step of the chains (and
	// reports its activation as 1) instead of only starting the chains from
	// it. §2.3 describes Mandel et al.'s CRBM this way ("the unit
	// corresponding to one query term is clamped on ... and sampling chains
	// for a large number of times are undertaken"), but the paper's own
	// procedure (§6.2.5: the query's one-hot vector is presented and "the
	// model acted 100 consecutive forward and backward steps") and its
	// results do not clamp it: its CRBM "performs worse at K = 1" of the
	// priming protocol, whose first ground-truth term is the query itself,
	// which a clamped query (activation 1, always ranked first) cannot do.
	// So the default is the unclamped chain. (With ClampQuery and the old
	// 10 × 20 chains, mtg-jamendo extended priming on the training subset,
	// seed 1: CRBM MAP 0.382; unclamped 0.237; docs/quality-notes.md.)
	ClampQuery bool
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
	switch {
	case c.Penalty == 0:
		c.Penalty = 2e-4
	case c.Penalty < 0:
		c.Penalty = 0
	}
	if c.ConditionStep <= 0 {
		c.ConditionStep = 1
	}
	if c.Epochs <= 0 {
		c.Epochs = 50
	}
	switch {
	case c.AverageLast == 0:
		c.AverageLast = 5
	case c.AverageLast < 0:
		c.AverageLast = 0
	}
	c.AverageLast = min(c.AverageLast, c.Epochs)
	if c.BatchSize <= 0 {
		c.BatchSize = 100
	}
	if c.MeanFieldIter <= 0 {
		c.MeanFieldIter = 50
	}
	if c.Trials <= 0 {
		c.Trials = 10
	}
	if c.Steps <= 0 {
		c.Steps = 100
	}
	if c.BurnIn <= 0 {
		c.BurnIn = 90
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
// document δ is the average activation of visible unit j in chains started
// from the query's one-hot vector with δ's condition unit set (§6.2.5; see
// CRBMConfig.ClampQuery), so the distance is −activation.
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
	// expNegU = exp(−U) and rowAbs_j = Σ_k |U_jk|, computed on first use by
	// the Gibbs chains (see fillRow).
	expOnce         sync.Once
	expNegU, rowAbs []float64
}

// crbmWS is the per-goroutine workspace of Knows and Distances.
type crbmWS struct {
	vis, h, acc, hs []float64 // mean field
	key             []byte
	sorted          []int
	gibbsWS
}

// TrainCRBM trains a CRBM on the training documents docs (term indices in
// [0, v)) by one-step contrastive divergence (Hinton 2002) from weights drawn
// with seed: U ~ N(0, 0.01²), d_j = log(p_j/(1−p_j)) of the term's document
// frequency p_j, c = 0, W = 0. For each mini-batch B of documents (in a seeded
// random order each epoch), with v0 = BoW(δ), p = probabilities:
//
//	h0 = σ(c + Uᵀv0), sampled;  v1 = σ(d + W a_δ + U h0);  h1 = σ(c + Uᵀv1)
//	G_U = ⟨v0 h0ᵀ − v1 h1ᵀ⟩ − p·U,  G_d = ⟨v0 − v1⟩,  G_c = ⟨h0 − h1⟩
//	G_W = ⟨(v0 − v1) a_δᵀ⟩ − p·W   (⟨·⟩: mean over the |B| documents of the batch)
//	for every parameter θ:  Δθ ← μ·Δθ + η·G_θ,  θ ← θ + Δθ
//
// as MatRBM does (see CRBMConfig). Column W_δ has a gradient term only in the
// batch holding δ; in the other batches it evolves by the penalty and its
// momentum alone, a linear map applied lazily (crbmDecay) when δ comes next.
// The model returned holds, for every parameter, the mean of its values
// after each batch of the last AverageLast epochs (MatRBM's running average
// from epoch maxepoch − avglast on); the idle batches of a column of W enter
// that mean through the same linear map (crbmDecay.advance).
// An earlier version moved W_δ by η·(v0 − v1) per document, |B| times MatRBM's
// step without momentum or decay: that CRBM reproduced its training
// documents (extended priming on CAL500's training documents: P@1 = 1.00,
// MAP 0.978), which the paper's did not (its Siamese-CE beat CRBM there).
//
// progress, when not nil, is called after each epoch with the mean squared
// reconstruction error Σ_j (v0_j − v1_j)² per document. Empty documents are
// skipped (they have no condition unit). Memory is about 4·V·|distinct term
// sets| + 12·V·|Δ| bytes during training (W, its momentum and its running
// sum in float32).
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
	vw := make([]float32, len(train)*v) // momentum of W
	last := make([]int, len(train))     // batches applied to each column of W
	dec := crbmDecay{eta: cfg.ConditionStep * cfg.LearningRate, mu: cfg.Momentum, p: cfg.Penalty}
	step := 0 // batches done
	// Averaging window: the iterates after batches winStart+1 … of the last
	// AverageLast epochs; su, sd, sc, sw hold their running sums.
	nb := (len(train) + cfg.BatchSize - 1) / cfg.BatchSize
	winStart := (cfg.Epochs - cfg.AverageLast) * nb
	var su, sd, sc []float64
	var sw []float32
	if cfg.AverageLast > 0 {
		su, sd, sc = make([]float64, v*nh), make([]float64, v), make([]float64, nh)
		sw = make([]float32, len(train)*v)
	}
	colSum := func(di int) []float32 {
		if sw == nil {
			return nil
		}
		return sw[di*v : (di+1)*v]
	}

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
			scale := lr / float64(len(batch))
			for _, di := range batch {
				doc := train[di]
				wd, vwd := w[di*v:(di+1)*v], vw[di*v:(di+1)*v]
				dec.advance(wd, vwd, colSum(di), last[di], step-last[di], winStart)
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
					recon += v1[j] * v1[j]
				}
				for _, j := range doc {
					row := gu[j*nh : (j+1)*nh]
					for k := range row {
						row[k] += h0p[k]
					}
					gd[j]++
					recon += 1 - 2*v1[j]
				}
				// W_δ: its batch-mean gradient is (v0 − v1)/|B| (one
				// document of the batch has condition δ); v1 becomes v1 − v0.
				for _, j := range doc {
					v1[j]--
				}
				for j := range wd {
					g := -v1[j]
					vel := mom*float64(vwd[j]) + cfg.ConditionStep*(scale*g-lr*cfg.Penalty*float64(wd[j]))
					vwd[j] = float32(vel)
					wd[j] += float32(vel)
				}
				if sum := colSum(di); sum != nil && step+1 > winStart {
					for j, x := range wd {
						sum[j] += x
					}
				}
				last[di] = step + 1
				for k := range gc {
					gc[k] += h0p[k] - h1[k]
				}
			}
			for i := range m.u {
				vu[i] = mom*vu[i] + scale*gu[i] - lr*cfg.Penalty*m.u[i]
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
			step++
			if su != nil && step > winStart {
				for i, x := range m.u {
					su[i] += x
				}
				for i, x := range m.d {
					sd[i] += x
				}
				for i, x := range m.c {
					sc[i] += x
				}
			}
		}
		if progress != nil {
			progress(epoch, recon/float64(len(train)))
		}
	}
	for di := range train {
		dec.advance(w[di*v:(di+1)*v], vw[di*v:(di+1)*v], colSum(di), last[di], step-last[di], winStart)
	}
	if su != nil {
		inv := 1 / float64(step-winStart)
		for i, x := range su {
			m.u[i] = x * inv
		}
		for i, x := range sd {
			m.d[i] = x * inv
		}
		for i, x := range sc {
			m.c[i] = x * inv
		}
		w = sw
		for i, x := range w {
			w[i] = float32(float64(x) * inv)
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

// crbmDecay is the update of a weight w and its momentum Δ in a batch where
// the weight has no data gradient: Δ ← μΔ − ηp·w, w ← w + Δ, i.e.
//
//	(w, Δ) ← A·(w, Δ),  A = [[1 − ηp, μ], [−ηp, μ]].
type crbmDecay struct{ eta, mu, p float64 }

// power returns Aⁿ (row-major 2×2).
func (c crbmDecay) power(n int) [4]float64 {
	p, _ := c.powerSum(n)
	return p
}

// mul2 returns the product x·y of row-major 2×2 matrices.
func mul2(x, y [4]float64) [4]float64 {
	return [4]float64{x[0]*y[0] + x[1]*y[2], x[0]*y[1] + x[1]*y[3], x[2]*y[0] + x[3]*y[2], x[2]*y[1] + x[3]*y[3]}
}

// powerSum returns Aⁿ and Σ_{k=1..n} Aᵏ (row-major 2×2) by repeated
// squaring: with P_m = Aᵐ and G_m = Σ_{k≤m} Aᵏ, P_{a+b} = P_a·P_b and
// G_{a+b} = G_a + P_a·G_b.
func (c crbmDecay) powerSum(n int) (p, g [4]float64) {
	add := func(x, y [4]float64) [4]float64 {
		return [4]float64{x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]}
	}
	p = [4]float64{1, 0, 0, 1}
	bp := [4]float64{1 - c.eta*c.p, c.mu, -c.eta * c.p, c.mu} // A^(2^i)
	bg := bp                                                  // G_(2^i)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			g = add(g, mul2(p, bg))
			p = mul2(p, bp)
		}
		bg = add(bg, mul2(bp, bg))
		bp = mul2(bp, bp)
	}
	return p, g
}

// advance moves a column (w, vel), last updated after batch from, through n
// batches without data gradient (batches from+1 … from+n), and adds to sum
// (unless nil) the values w takes after those of them beyond batch winStart,
// the averaging window of TrainCRBM.
func (c crbmDecay) advance(w, vel, sum []float32, from, n, winStart int) {
	if n <= 0 {
		return
	}
	if sum != nil {
		before := min(max(winStart-from, 0), n) // idle batches before the window
		if in := n - before; in > 0 {
			pre := c.power(before)
			_, g := c.powerSum(in)
			for j := range w {
				x, y := float64(w[j]), float64(vel[j])
				x, y = pre[0]*x+pre[1]*y, pre[2]*x+pre[3]*y
				sum[j] += float32(g[0]*x + g[1]*y)
			}
		}
	}
	c.apply(w, vel, n)
}

// apply advances every (w[j], vel[j]) by n batches without data gradient.
func (c crbmDecay) apply(w, vel []float32, n int) {
	if n <= 0 {
		return
	}
	m := c.power(n)
	for j := range w {
		x, y := float64(w[j]), float64(vel[j])
		w[j], vel[j] = float32(m[0]*x+m[1]*y), float32(m[2]*x+m[3]*y)
	}
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

// WholeContext marks CRBM as an eval.WholeContextModel: its context, the
// document's one-hot condition, stays whole in the incomplete local context
// setting (§6.5).
func (m *CRBM) WholeContext() {}

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

// Distances fills dst[i*V+j] with −(average activation of visible unit j) in
// chains started from unit queries[i] with ctx's condition set (see CRBM, and
// CRBMConfig.Inference for how the average is computed). rng drives the
// Gibbs chains (unused by CRBMMeanField): Distances draws two numbers from it
// to seed its own PCG stream, so the same rng state gives the same rows. The
// queries of one call share the per-context work (the visible biases d + W a
// and the memoised p(v|h) rows), so the evaluator should pass all the terms of
// a document in one call. It panics if len(dst) != len(queries)·V or a query
// is out of range.
func (m *CRBM) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	v := m.v
	if len(dst) != len(queries)*v {
		panic(fmt.Sprintf("baselines: CRBM.Distances: len(dst) = %d, want %d", len(dst), len(queries)*v))
	}
	for _, q := range queries {
		if q < 0 || q >= v {
			panic("baselines: CRBM.Distances: query out of range")
		}
	}
	if len(queries) == 0 {
		return
	}
	ws := m.ws()
	defer m.pool.Put(ws)
	cond := m.condition(ws, ctx)
	gibbs := m.cfg.Inference == CRBMGibbs
	if gibbs {
		m.gibbsBegin(ws, cond, rng)
	}
	for i, q := range queries {
		row := dst[i*v : (i+1)*v]
		if gibbs {
			m.gibbs(ws, q, row)
		} else {
			m.meanField(ws, cond, q, row)
		}
		for j := range row {
			row[j] = -row[j]
		}
	}
}

// visibleProbs sets out[j] = σ(d_j + cond_j + U_j·h) and, when q ≥ 0, clamps
// out[q] = 1.
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
	if q >= 0 {
		out[q] = 1
	}
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
	clamp := -1
	if m.cfg.ClampQuery {
		clamp = q
	}
	for it := 0; it < m.cfg.MeanFieldIter; it++ {
		m.hiddenProbs(ws.h, vis)
		m.visibleProbs(out, cond, ws.h, clamp)
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

// Gibbs chains (CRBMGibbs). The chains are those of the paper (§6.2.5) and
// of CRBMConfig; the implementation avoids recomputing what does not change:
//
//   - the visible biases b = d + W a of the context are computed once per
//     Distances call and shared by its queries;
//   - p(v|h, a) = σ(b + U h) depends on the hidden sample h only, a binary
//     vector of H bits, and a chain revisits few of the 2^H patterns (about
//     60 distinct patterns in ~700 samples per mtg-jamendo training document
//     at H = 10), so each pattern's row of probabilities and sampling
//     thresholds is computed once per call (memoised when H ≤
//     crbmMemoMaxHidden, up to a memory budget) and the Rao-Blackwellised
//     average Σ_t p(v|h_t) is accumulated as Σ_patterns count·p(v|h);
//   - σ(x) = 1/(1 + e^−x) with e^−x = e^−b_j·Π_{k on} e^−U_jk, a product of
//     exponentials computed once (per model for U, per context for b), and
//     with the memo the product is split into the two halves of the hidden
//     units, each memoised per context (halfRow): a row costs one multiply
//     and one division per unit instead of an exponential;
//   - a hidden unit is sampled by comparing its pre-activation with the
//     logits of the top byte of the uniform (bernoulliLogit), which needs
//     σ only once in about 256 draws;
//   - the visible sample is sparse (about 3.5 active units of 161), so the
//     next hidden pre-activation c + Uᵀv is the sum of the active rows of U;
//   - uniforms come from a PCG stream seeded from the caller's rng, used
//     directly (no interface call), a byte at a time for the visible units
//     (see sampleVisible).
//
// The estimator, its Markov chain and the sampling distributions are those of
// the direct implementation; only the use of the random stream differs, the
// Bernoulli probabilities are quantised to multiples of 2⁻³² (an error of at
// most 2⁻³² per unit and step) and σ differs from 1/(1+exp(−x)) by rounding
// (below 1e-13). TestCRBMGibbsExact checks the estimate against the exact
// expectation computed by enumerating a small model's states; the samplers
// and the products have their own tests. BenchmarkCRBMDistances measures it.

const (
	// crbmMemoMaxHidden is the largest H for which p(v|h) rows are memoised
	// by hidden pattern (a table of 2^H entries per workspace).
	crbmMemoMaxHidden = 16
	// crbmMemoBytes bounds the memoised rows of one workspace.
	crbmMemoBytes = 8 << 20
	twoTo32       = 1 << 32
	// crbmExpRange bounds |x| for which fillRow computes exp(−x) as a
	// product of precomputed exponentials (far from overflow at 709).
	crbmExpRange = 700
)

// gibbsWS holds the Gibbs state of one Distances call.
type gibbsWS struct {
	src      rand.PCG // uniform stream of the call, seeded from the caller's rng
	half     uint64   // buffered 32 high bits of a PCG output
	haveHalf bool

	bias    []float64 // V: b = d + W a of the call's context
	expBias []float64 // V: exp(−b)
	fast    []bool    // V: |b_j| + Σ_k |U_jk| ≤ crbmExpRange (see fillRow)
	base    []float64 // H: c + U_q of the current query
	pre     []float64 // H: hidden pre-activation
	on      []int     // indices of the hidden units on in the current sample
	active  []int32   // visible units sampled on (a clamped query excluded)

	// Memo of p(v|h) by hidden pattern: slot s holds prob[s·V:(s+1)·V],
	// thr[s·V8:(s+1)·V8] (V8 = V rounded up to 8, padding thresholds 0) and
	// top[s·G:(s+1)·G] (G = V8/8, the top bytes of the thresholds of units
	// 8g..8g+7 packed little-endian). The last slot is scratch space for
	// patterns that are not memoised.
	slotOf   []int32  // 2^H: slot of a pattern, valid when stamp == gen
	stamp    []uint32 // 2^H
	gen      uint32
	nslots   int
	maxSlots int
	prob     []float64
	thr      []uint32
	top      []uint64
	// With the memo, the products of fillRow are split in two halves of the
	// hidden units (see halfRow), each memoised per context like the rows.
	nlo       int
	halfRows  [2][]float64
	halfStamp [2][]uint32
	count     []int32 // post-burn-in visits of each slot by the current query
	visited   []int32 // slots with count > 0
}

// uint32 returns 32 uniform bits.
func (g *gibbsWS) uint32() uint32 {
	if g.haveHalf {
		g.haveHalf = false
		return uint32(g.half)
	}
	x := g.src.Uint64()
	g.half, g.haveHalf = x>>32, true
	return uint32(x)
}

// gibbsBegin prepares ws for the queries of one Distances call in the
// context whose condition column is cond (nil for none).
func (m *CRBM) gibbsBegin(ws *crbmWS, cond []float32, rng *rand.Rand) {
	g := &ws.gibbsWS
	v, nh := m.v, m.h
	if g.bias == nil {
		g.bias = make([]float64, v)
		g.expBias = make([]float64, v)
		g.fast = make([]bool, v)
		g.base = make([]float64, nh)
		g.pre = make([]float64, nh)
		v8 := (v + 7) &^ 7
		per := 8*v + 4*v8 + v8/8 + 4
		g.maxSlots = min(crbmMemoBytes/per, 1<<min(nh, 30))
		if nh <= crbmMemoMaxHidden {
			g.slotOf = make([]int32, 1<<nh)
			g.stamp = make([]uint32, 1<<nh)
			g.nlo = nh / 2
			for h, n := range [2]int{g.nlo, nh - g.nlo} {
				g.halfRows[h] = make([]float64, v<<n)
				g.halfStamp[h] = make([]uint32, 1<<n)
			}
		} else {
			g.maxSlots = 0
		}
		m.growSlots(g, 1)
	}
	m.expOnce.Do(func() {
		m.expNegU = make([]float64, len(m.u))
		m.rowAbs = make([]float64, v)
		for i, x := range m.u {
			m.expNegU[i] = math.Exp(-x)
			m.rowAbs[i/nh] += math.Abs(x)
		}
	})
	for j := range g.bias {
		b := m.d[j]
		if cond != nil {
			b += float64(cond[j])
		}
		g.bias[j] = b
		g.expBias[j] = math.Exp(-b)
		g.fast[j] = math.Abs(b)+m.rowAbs[j] <= crbmExpRange
	}
	g.gen++
	if g.gen == 0 {
		clear(g.stamp)
		clear(g.halfStamp[0])
		clear(g.halfStamp[1])
		g.gen = 1
	}
	g.nslots = 0
	g.src.Seed(rng.Uint64(), rng.Uint64())
	g.haveHalf = false
}

// growSlots makes room for n slots plus the scratch slot.
func (m *CRBM) growSlots(g *gibbsWS, n int) {
	v8 := (m.v + 7) &^ 7
	for len(g.count) < n+1 {
		g.prob = append(g.prob, make([]float64, m.v)...)
		g.thr = append(g.thr, make([]uint32, v8)...)
		g.top = append(g.top, make([]uint64, v8/8)...)
		g.count = append(g.count, 0)
	}
}

// row returns the slot holding p(v|h, a) for the hidden sample whose units
// on are g.on (pattern pat as bits), computing it when it is not memoised.
// It returns the slot and whether it is the scratch slot.
func (m *CRBM) row(g *gibbsWS, pat uint64) (int, bool) {
	if g.slotOf != nil {
		if g.stamp[pat] == g.gen {
			return int(g.slotOf[pat]), false
		}
		if g.nslots < g.maxSlots {
			s := g.nslots
			g.nslots++
			// Keep the scratch slot (the last one) above the memoised ones.
			m.growSlots(g, g.nslots)
			m.fillRow(g, s, pat)
			g.stamp[pat], g.slotOf[pat] = g.gen, int32(s)
			return s, false
		}
	}
	s := len(g.count) - 1
	m.fillRow(g, s, pat)
	return s, true
}

// fillRow computes slot s: prob_j = σ(b_j + Σ_{k on} U_jk) (the visible
// conditional of the CRBM energy, §2.3), thr_j = round(prob_j·2³²)
// saturated at 2³²−1, and the packed top bytes thr_j>>24.
func (m *CRBM) fillRow(g *gibbsWS, s int, pat uint64) {
	v, nh := m.v, m.h
	v8 := (v + 7) &^ 7
	prob := g.prob[s*v : (s+1)*v]
	thr := g.thr[s*v8 : (s+1)*v8]
	var lo, hi []float64
	if g.halfRows[0] != nil {
		lo = m.halfRow(g, 0, pat&(1<<g.nlo-1))
		hi = m.halfRow(g, 1, pat>>g.nlo)
	}
	for j := range prob {
		var p float64
		switch {
		case g.fast[j] && lo != nil:
			// exp(−x) = [exp(−b_j)·Π_{k<nlo on} exp(−U_jk)]·[Π_{k≥nlo on} exp(−U_jk)].
			p = 1 / (1 + lo[j]*hi[j])
		case g.fast[j]:
			// exp(−x) = exp(−b_j)·Π_{k on} exp(−U_jk): every partial product
			// lies in [e^−700, e^700], so it is a normal float with a relative
			// error of a few ulps, like σ(x) computed from x.
			e := g.expBias[j]
			row := m.expNegU[j*nh : (j+1)*nh]
			for _, k := range g.on {
				e *= row[k]
			}
			p = 1 / (1 + e)
		default:
			x := g.bias[j]
			row := m.u[j*nh : (j+1)*nh]
			for _, k := range g.on {
				x += row[k]
			}
			p = sigmoid(x)
		}
		prob[j] = p
		t := uint32(math.MaxUint32)
		if x := p*twoTo32 + 0.5; x < math.MaxUint32 {
			t = uint32(x)
		}
		thr[j] = t
	}
	top := g.top[s*(v8/8) : (s+1)*(v8/8)]
	for gi := range top {
		var w uint64
		for lane, t := range thr[gi*8 : gi*8+8] {
			w |= uint64(t>>24) << (8 * lane)
		}
		top[gi] = w
	}
}

// halfRow returns, for the half h (0: hidden units 0..nlo−1, 1: the others)
// of a hidden pattern with bits pat (relative to the half), the products
// exp(−b_j)·Π_{k on} exp(−U_jk) (half 0) or Π_{k on} exp(−U_jk) (half 1) for
// every unit j, computed once per context. Values of units that are not fast
// are not used.
func (m *CRBM) halfRow(g *gibbsWS, h int, pat uint64) []float64 {
	v, nh := m.v, m.h
	rows := g.halfRows[h][int(pat)*v : (int(pat)+1)*v]
	if g.halfStamp[h][pat] == g.gen {
		return rows
	}
	g.halfStamp[h][pat] = g.gen
	off := h * g.nlo
	for j := range rows {
		e := 1.0
		if h == 0 {
			e = g.expBias[j]
		}
		row := m.expNegU[j*nh+off : (j+1)*nh]
		for b := pat; b != 0; b &= b - 1 {
			e *= row[bits.TrailingZeros64(b)]
		}
		rows[j] = e
	}
	return rows
}

// sampleVisible appends to active the units j ≠ q sampled on with
// probabilities thr_j/2³² (slot thresholds thr, packed top bytes top); q < 0
// excludes no unit.
//
// Each unit compares a 32-bit uniform u = 2²⁴·β + ρ with its threshold t,
// drawing the top byte β first: u < t ⟺ β < t>>24, or β = t>>24 and
// ρ < t mod 2²⁴, and ρ (24 more bits) is drawn only in the second case
// (probability 1/256). One PCG output gives the top bytes of 8 units, and a
// SWAR comparison of the 8 bytes with the packed t>>24 finds the units with
// β ≤ t>>24 at once (most units are off: p ≈ 0.02 for a typical tag). The
// outcome has exactly the distribution of comparing independent 32-bit
// uniforms with the thresholds.
func (g *gibbsWS) sampleVisible(active []int32, thr []uint32, top []uint64, q int) []int32 {
	const hi = 0x8080808080808080
	for gi, y := range top {
		x := g.src.Uint64()
		// High bit of byte i of le: x_i ≤ y_i (no borrow crosses bytes in d).
		d := (y | hi) - (x &^ hi)
		le := (^x&y | ^(x^y)&d) & hi
		for le != 0 {
			lane := bits.TrailingZeros64(le) >> 3
			le &= le - 1
			t := thr[gi*8+lane]
			if b := uint32(uint8(x >> (8 * lane))); b == t>>24 && g.uint32()&(1<<24-1) >= t&(1<<24-1) {
				continue // β = t>>24 and ρ ≥ t mod 2²⁴: off
			}
			if j := gi*8 + lane; j != q {
				active = append(active, int32(j))
			}
		}
	}
	return active
}

// crbmLogit[b] = logit(b/256) = log(b/(256−b)), ±Inf at the ends: a 32-bit
// uniform u with top byte b satisfies u < σ(a)·2³² whenever a ≥ logit((b+1)/256)
// and fails it whenever a < logit(b/256).
var crbmLogit = func() (l [257]float64) {
	for b := range l {
		l[b] = math.Log(float64(b) / float64(256-b))
	}
	return l
}()

// bernoulliLogit reports whether a fresh 32-bit uniform u falls below
// σ(a)·2³², i.e. samples a unit with pre-activation a. The top byte of u
// decides it by comparing a with two logit bounds, except with probability
// about 1/256 when σ(a) lies in the byte's interval and σ(a) is computed.
func (g *gibbsWS) bernoulliLogit(a float64) bool {
	u := g.uint32()
	b := u >> 24
	switch {
	case a >= crbmLogit[b+1]:
		return true
	case a < crbmLogit[b]:
		return false
	}
	return float64(u) < sigmoid(a)*twoTo32
}

// gibbs writes into out the chain average of p(v|h, a) for query q (the
// Rao-Blackwellised estimate of CRBMGibbs), after gibbsBegin.
func (m *CRBM) gibbs(ws *crbmWS, q int, out []float64) {
	g := &ws.gibbsWS
	v, nh := m.v, m.h
	v8 := (v + 7) &^ 7
	cfg := &m.cfg
	// h ~ p(h|v) has pre-activation c + Uᵀv = c + Σ_{j active} U_j. The
	// chain starts from v = e_q (pre-activation base = c + U_q, no other unit
	// active); a clamped query keeps U_q in every step and is never sampled,
	// a free one is sampled from the second step on like any unit.
	uq := m.u[q*nh : (q+1)*nh]
	for k := range g.base {
		g.base[k] = m.c[k] + uq[k]
	}
	clamp := cfg.ClampQuery
	excl := -1
	if clamp {
		excl = q
	}
	clear(out)
	g.visited = g.visited[:0]
	n := 0
	for trial := 0; trial < cfg.Trials; trial++ {
		active := g.active[:0] // v = e_q: only the query is on
		for step := 0; step < cfg.Steps; step++ {
			if clamp || step == 0 {
				copy(g.pre, g.base)
			} else {
				copy(g.pre, m.c)
			}
			for _, j := range active {
				row := m.u[int(j)*nh : (int(j)+1)*nh]
				for k, x := range row {
					g.pre[k] += x
				}
			}
			g.on = g.on[:0]
			var pat uint64
			for k, a := range g.pre {
				if g.bernoulliLogit(a) {
					g.on = append(g.on, k)
					pat |= 1 << (k & 63)
				}
			}
			s, scratch := m.row(g, pat)
			if step >= cfg.BurnIn {
				n++
				if scratch {
					for j, p := range g.prob[s*v : (s+1)*v] {
						out[j] += p
					}
				} else {
					if g.count[s] == 0 {
						g.visited = append(g.visited, int32(s))
					}
					g.count[s]++
				}
			}
			if step == cfg.Steps-1 {
				break
			}
			active = g.sampleVisible(active[:0], g.thr[s*v8:(s+1)*v8], g.top[s*(v8/8):(s+1)*(v8/8)], excl)
		}
		g.active = active
	}
	for _, s := range g.visited {
		c := float64(g.count[s])
		g.count[s] = 0
		for j, p := range g.prob[int(s)*v : (int(s)+1)*v] {
			out[j] += c * p
		}
	}
	inv := 1 / float64(n)
	for j := range out {
		out[j] *= inv
	}
	if clamp {
		out[q] = 1 // on in every sample
	}
}

// Tuning records the CRBM's size and how its activations were estimated
// (eval.Tuned): nothing of it is chosen on data.
func (m *CRBM) Tuning() map[string]any {
	t := map[string]any{"hidden": m.h, "epochs": m.cfg.Epochs, "batch": m.cfg.BatchSize, "average_last": m.cfg.AverageLast}
	query := "starts each chain (§6.2.5)"
	if m.cfg.ClampQuery {
		query = "clamped on (§2.3)"
	}
	if m.cfg.Inference == CRBMMeanField {
		t["inference"] = "mean field"
	} else {
		t["inference"] = fmt.Sprintf("Gibbs, %d chains × %d steps, steps %d-%d averaged", m.cfg.Trials, m.cfg.Steps, m.cfg.BurnIn+1, m.cfg.Steps)
	}
	t["query"] = query
	return t
}
