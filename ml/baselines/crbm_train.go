package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// FitCRBM trains a CRBM on the training documents (term indices in [0, v)) by
// one-step contrastive divergence (Hinton 2002) from weights drawn with o.Seed: U ~ N(0, 0.01²), d_j = log(p_j/(1−p_j)) of the term's document
// frequency p_j, c = 0, W = 0. For each mini-batch B of documents (in a seeded
// random order each epoch), with v0 = BoW(δ), p = probabilities:
//
//	h0 = σ(c + Uᵀv0), sampled;  v1 = σ(d + W a_δ + U h0);  h1 = σ(c + Uᵀv1)
//	G_U = ⟨v0 h0ᵀ − v1 h1ᵀ⟩ − p·U,  G_d = ⟨v0 − v1⟩,  G_c = ⟨h0 − h1⟩
//	G_W = ⟨(v0 − v1) a_δᵀ⟩ − p·W   (⟨·⟩: mean over the |B| documents of the batch)
//	for every parameter θ:  Δθ ← μ·Δθ + η·G_θ,  θ ← θ + Δθ
//
// as MatRBM does (see CRBMOptions). Column W_δ has a gradient term only in the
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
// o.Progress, when not nil, is called after each epoch with its number and the
// mean squared reconstruction error Σ_j (v0_j − v1_j)² per document. Empty documents are
// skipped (they have no condition unit). Memory is about 4·V·|distinct term
// sets| + 12·V·|Δ| bytes during training (W, its momentum and its running
// sum in float32).
func FitCRBM(ctx context.Context, docs [][]int, v int, o CRBMOptions) (*CRBM, error) {
	progress := o.Progress
	o.Progress = nil // the model keeps its options
	cfg := o.withDefaults()
	if v <= 0 {
		return nil, fmt.Errorf("baselines: CRBM: vocabulary size %d", v)
	}
	train, err := crbmTrainingSets(docs, v)
	if err != nil {
		return nil, err
	}
	t := newCRBMTrainer(train, v, cfg, cfg.Seed)
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("baselines: CRBM: %w", err)
		}
		recon := t.epoch()
		if progress != nil {
			progress(CRBMPoint{Epoch: epoch, ReconErr: recon / float64(len(train))})
		}
	}
	t.m.collapseConditions(train, t.finish())
	return t.m, nil
}

// crbmTrainingSets checks that every term of docs is in [0, v) and returns
// the term sets (distinct terms, sorted) of the non-empty documents.
func crbmTrainingSets(docs [][]int, v int) ([][]int, error) {
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
	return train, nil
}

// crbmTrainer is the state of one FitCRBM run: the model being trained,
// the condition weights W of every training document with their momentum,
// the running sums of the averaging window and the per-batch buffers.
type crbmTrainer struct {
	m     *CRBM
	cfg   CRBMOptions
	train [][]int
	v, nh int
	rng   *rand.Rand

	w    []float32 // W, one column of V per training document
	vw   []float32 // momentum of W
	last []int     // batches applied to each column of W
	dec  crbmDecay
	step int // batches done
	// Averaging window: the iterates after batches winStart+1 … of the last
	// AverageLast epochs; su, sd, sc, sw hold their running sums.
	winStart   int
	su, sd, sc []float64
	sw         []float32

	gu, gd, gc      []float64 // batch gradients of U, d and c
	vu, vd, vc      []float64 // momentum of U, d and c
	h0p, h0, h1, v1 []float64
	order           []int
}

// newCRBMTrainer draws the initial model from seed and allocates the
// training state.
func newCRBMTrainer(train [][]int, v int, cfg CRBMOptions, seed uint64) *crbmTrainer {
	rng := rand.New(rand.NewPCG(seed, 0xc4b3))
	nh := cfg.Hidden
	t := &crbmTrainer{
		m:     initCRBM(train, v, cfg, rng),
		cfg:   cfg,
		train: train,
		v:     v,
		nh:    nh,
		rng:   rng,
		w:     make([]float32, len(train)*v),
		vw:    make([]float32, len(train)*v),
		last:  make([]int, len(train)),
		dec:   crbmDecay{eta: cfg.ConditionStep * cfg.LearningRate, mu: cfg.Momentum, p: cfg.Penalty},
	}
	nb := (len(train) + cfg.BatchSize - 1) / cfg.BatchSize
	t.winStart = (cfg.Epochs - cfg.AverageLast) * nb
	if cfg.AverageLast > 0 {
		t.su, t.sd, t.sc = make([]float64, v*nh), make([]float64, v), make([]float64, nh)
		t.sw = make([]float32, len(train)*v)
	}
	t.gu, t.gd, t.gc = make([]float64, v*nh), make([]float64, v), make([]float64, nh)
	t.vu, t.vd, t.vc = make([]float64, v*nh), make([]float64, v), make([]float64, nh)
	t.h0p, t.h0, t.h1 = make([]float64, nh), make([]float64, nh), make([]float64, nh)
	t.v1 = make([]float64, v)
	t.order = make([]int, len(train))
	for i := range t.order {
		t.order[i] = i
	}
	return t
}

// initCRBM returns the untrained model: U ~ N(0, 0.01²) drawn from rng,
// d_j the logit of term j's smoothed document frequency, c = 0.
func initCRBM(train [][]int, v int, cfg CRBMOptions, rng *rand.Rand) *CRBM {
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
	return m
}

// colSum returns the running sum of column di of W, or nil when no
// averaging is done.
func (t *crbmTrainer) colSum(di int) []float32 {
	if t.sw == nil {
		return nil
	}
	return t.sw[di*t.v : (di+1)*t.v]
}

// epoch runs one pass over the training documents in a fresh random order
// and returns the summed reconstruction error Σ_j (v0_j − v1_j)².
func (t *crbmTrainer) epoch() float64 {
	order := t.order
	t.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	recon := 0.0
	for start := 0; start < len(order); start += t.cfg.BatchSize {
		recon = t.batch(order[start:min(start+t.cfg.BatchSize, len(order))], recon)
	}
	return recon
}

// batch accumulates the CD-1 gradients of the documents of batch, moves
// their condition columns and then U, d and c. It returns recon plus the
// batch's reconstruction error, added document by document.
func (t *crbmTrainer) batch(batch []int, recon float64) float64 {
	clear(t.gu)
	clear(t.gd)
	clear(t.gc)
	scale := t.cfg.LearningRate / float64(len(batch))
	for _, di := range batch {
		recon = t.document(di, scale, recon)
	}
	t.update(scale)
	return recon
}

// document runs CD-1 on training document di: it brings the document's
// condition column up to date, samples the reconstruction, adds its
// statistics to the batch gradients and moves the condition column.
func (t *crbmTrainer) document(di int, scale, recon float64) float64 {
	v := t.v
	doc := t.train[di]
	wd, vwd := t.w[di*v:(di+1)*v], t.vw[di*v:(di+1)*v]
	t.dec.advance(wd, vwd, t.colSum(di), t.last[di], t.step-t.last[di], t.winStart)
	t.reconstruct(doc, wd)
	recon = t.addStatistics(doc, recon)
	t.moveCondition(di, doc, wd, vwd, scale)
	h0p, h1 := t.h0p, t.h1
	for k := range t.gc {
		t.gc[k] += h0p[k] - h1[k]
	}
	return recon
}

// reconstruct computes the positive phase h0p = σ(c + Σ_{j∈δ} U_j) with its
// sample h0, the reconstruction v1 = σ(d + W_δ + U h0) and h1 = σ(c + Uᵀv1).
func (t *crbmTrainer) reconstruct(doc []int, wd []float32) {
	m, nh, v := t.m, t.nh, t.v
	h0p, h0, h1, v1 := t.h0p, t.h0, t.h1, t.v1
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
		if t.rng.Float64() < h0p[k] {
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
}

// addStatistics adds the document's negative statistics (over all units)
// and positive ones (over its terms) to the gradients of U and d, and
// returns recon plus its reconstruction error.
func (t *crbmTrainer) addStatistics(doc []int, recon float64) float64 {
	nh, v := t.nh, t.v
	gu, gd := t.gu, t.gd
	h0p, h1, v1 := t.h0p, t.h1, t.v1
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
	return recon
}

// moveCondition applies the momentum step to the condition column (wd, vwd)
// of document di, adds the new column to its running sum inside the
// averaging window and records the batch. It turns v1 into v1 − v0.
func (t *crbmTrainer) moveCondition(di int, doc []int, wd, vwd []float32, scale float64) {
	cfg, v1 := t.cfg, t.v1
	lr, mom := cfg.LearningRate, cfg.Momentum
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
	if sum := t.colSum(di); sum != nil && t.step+1 > t.winStart {
		for j, x := range wd {
			sum[j] += x
		}
	}
	t.last[di] = t.step + 1
}

// update applies the momentum step of the batch to U, d and c, counts the
// batch and, inside the averaging window, adds the new iterate to the sums.
func (t *crbmTrainer) update(scale float64) {
	m, cfg := t.m, t.cfg
	lr, mom := cfg.LearningRate, cfg.Momentum
	for i := range m.u {
		t.vu[i] = mom*t.vu[i] + scale*t.gu[i] - lr*cfg.Penalty*m.u[i]
		m.u[i] += t.vu[i]
	}
	for i := range m.d {
		t.vd[i] = mom*t.vd[i] + scale*t.gd[i]
		m.d[i] += t.vd[i]
	}
	for i := range m.c {
		t.vc[i] = mom*t.vc[i] + scale*t.gc[i]
		m.c[i] += t.vc[i]
	}
	t.step++
	if t.su != nil && t.step > t.winStart {
		for i, x := range m.u {
			t.su[i] += x
		}
		for i, x := range m.d {
			t.sd[i] += x
		}
		for i, x := range m.c {
			t.sc[i] += x
		}
	}
}

// finish brings every condition column up to the last batch and, when
// averaging, replaces the model's parameters by their window means. It
// returns W (the averaged W when averaging).
func (t *crbmTrainer) finish() []float32 {
	v, m, w := t.v, t.m, t.w
	for di := range t.train {
		t.dec.advance(w[di*v:(di+1)*v], t.vw[di*v:(di+1)*v], t.colSum(di), t.last[di], t.step-t.last[di], t.winStart)
	}
	if t.su != nil {
		inv := 1 / float64(t.step-t.winStart)
		for i, x := range t.su {
			m.u[i] = x * inv
		}
		for i, x := range t.sd {
			m.d[i] = x * inv
		}
		for i, x := range t.sc {
			m.c[i] = x * inv
		}
		w = t.sw
		for i, x := range w {
			w[i] = float32(float64(x) * inv)
		}
	}
	return w
}

// collapseConditions collapses W (one column per training document of
// train) into one averaged condition column per distinct term set.
func (m *CRBM) collapseConditions(train [][]int, w []float32) {
	v := m.v
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
// the averaging window of FitCRBM.
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
