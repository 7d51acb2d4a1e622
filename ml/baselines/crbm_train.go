package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

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
