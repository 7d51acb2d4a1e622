package baselines

import (
	"math"
	"math/rand/v2"
	"testing"
)

// crbmExactGibbs returns the exact expectation of the CRBMGibbs estimate for
// query q under condition column cond (nil for none), by propagating the
// distribution of the visible state through the chain: with π_t the law of v
// at step t (π_0 = δ(e_q)),
//
//	w_t(h) = Σ_v π_t(v) Π_k p(h_k|v),  p(h_k=1|v) = σ(c_k + Σ_j U_jk v_j),
//	E = 1/(S−B) Σ_{t≥B} Σ_h w_t(h) p(v|h),  p(v_j=1|h) = σ(d_j + cond_j + Σ_k U_jk h_k),
//	π_{t+1}(v') = Σ_h w_t(h) Π_j p(v'_j|h),
//
// and with m.cfg.ClampQuery p(v_q=1|h) = 1 (so v'_q = 1).
//
// It enumerates 2^V visible and 2^H hidden states, so V and H must be small.
func crbmExactGibbs(m *CRBM, cond []float32, q int) []float64 {
	curve := crbmExactCurve(m, cond, q, m.cfg.Steps)
	exp := make([]float64, m.v)
	for _, e := range curve[m.cfg.BurnIn:] {
		for j, x := range e {
			exp[j] += x
		}
	}
	for j := range exp {
		exp[j] /= float64(m.cfg.Steps - m.cfg.BurnIn)
	}
	return exp
}

// crbmExactCurve returns E_t = E[p(v|h_t)] for t = 0..steps−1 of a chain
// started from e_q (see crbmExactGibbs).
func crbmExactCurve(m *CRBM, cond []float32, q, steps int) [][]float64 {
	v, nh := m.v, m.h
	pi := make([]float64, 1<<v)
	pi[1<<q] = 1
	curve := make([][]float64, steps)
	w := make([]float64, 1<<nh)
	pv := crbmExactVisible(m, cond, q)
	ph := make([]float64, nh)
	for step := 0; step < steps; step++ {
		crbmExactHidden(m, pi, w, ph)
		e := make([]float64, v)
		for hp, x := range w {
			for j := range v {
				e[j] += x * pv[hp][j]
			}
		}
		curve[step] = e
		if step == steps-1 {
			break
		}
		crbmExactNext(m, pv, w, pi, q)
	}
	return curve
}

// crbmExactVisible returns p(v|h) for every hidden pattern h (bit k of the
// index is h_k), the query unit on when m.cfg.ClampQuery.
func crbmExactVisible(m *CRBM, cond []float32, q int) [][]float64 {
	v, nh := m.v, m.h
	pv := make([][]float64, 1<<nh)
	for hp := range pv {
		pv[hp] = make([]float64, v)
		for j := range v {
			x := m.d[j]
			if cond != nil {
				x += float64(cond[j])
			}
			for k := range nh {
				if hp>>k&1 == 1 {
					x += m.u[j*nh+k]
				}
			}
			pv[hp][j] = sigmoid(x)
		}
		if m.cfg.ClampQuery {
			pv[hp][q] = 1
		}
	}
	return pv
}

// crbmExactHidden sets w(h) = Σ_v π(v) Π_k p(h_k|v), using ph as scratch.
func crbmExactHidden(m *CRBM, pi, w, ph []float64) {
	v, nh := m.v, m.h
	clear(w)
	for vs, p := range pi {
		if p == 0 {
			continue
		}
		for k := range nh {
			a := m.c[k]
			for j := range v {
				if vs>>j&1 == 1 {
					a += m.u[j*nh+k]
				}
			}
			ph[k] = sigmoid(a)
		}
		for hp := range w {
			x := p
			for k := range nh {
				if hp>>k&1 == 1 {
					x *= ph[k]
				} else {
					x *= 1 - ph[k]
				}
			}
			w[hp] += x
		}
	}
}

// crbmExactNext sets pi to the law of the next visible state,
// π'(v') = Σ_h w(h) Π_j p(v'_j|h).
func crbmExactNext(m *CRBM, pv [][]float64, w, pi []float64, q int) {
	v := m.v
	clear(pi)
	for vs := range pi {
		if m.cfg.ClampQuery && vs>>q&1 == 0 {
			continue
		}
		for hp, x := range w {
			for j := range v {
				if j == q && m.cfg.ClampQuery {
					continue
				}
				if vs>>j&1 == 1 {
					x *= pv[hp][j]
				} else {
					x *= 1 - pv[hp][j]
				}
			}
			pi[vs] += x
		}
	}
}

// TestCRBMGibbsExact checks that CRBMGibbs estimates the expectation of the
// paper's chain procedure: over many calls with different rng seeds, the mean
// activation of every unit lies within 5 standard errors of the exact
// expectation computed by crbmExactGibbs (an independent enumeration of the
// chain's states). The random models mix rare units (p < 2⁻⁸, the byte
// sampler's fast path, in groups of 8) with common ones, and have H below
// and above crbmMemoMaxHidden (memoised and scratch rows).
func TestCRBMGibbsExact(t *testing.T) {
	for _, c := range []struct {
		name          string
		v, h, q       int
		cond, clamp   bool
		steps, burnIn int
		dBias, uScale float64
		trials, calls int
	}{
		{"V=10 H=3 rare", 10, 3, 9, true, false, 4, 1, -6, 2.5, 20, 400},
		{"V=11 H=4 common", 11, 4, 2, true, false, 3, 0, -1, 1, 20, 400},
		{"V=9 H=2 no condition", 9, 2, 0, false, false, 5, 2, -3, 2, 20, 400},
		{"V=5 H=17 scratch rows", 5, 17, 1, true, false, 3, 1, -1, 0.3, 10, 200},
		{"clamped V=10 H=3 rare", 10, 3, 9, true, true, 4, 1, -6, 2.5, 20, 400},
		{"clamped V=11 H=4 common", 11, 4, 2, true, true, 3, 0, -1, 1, 20, 400},
		{"clamped V=9 H=2 no condition", 9, 2, 0, false, true, 5, 2, -3, 2, 20, 400},
		{"clamped V=5 H=17 scratch rows", 5, 17, 1, true, true, 3, 1, -1, 0.3, 10, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(c.v), uint64(c.h)))
			m := &CRBM{v: c.v, h: c.h, u: make([]float64, c.v*c.h), d: make([]float64, c.v), c: make([]float64, c.h),
				cfg: CRBMOptions{Trials: c.trials, Steps: c.steps, BurnIn: c.burnIn, ClampQuery: c.clamp}.withDefaults()}
			m.cfg.BurnIn = c.burnIn
			for i := range m.u {
				m.u[i] = c.uScale * r.NormFloat64()
			}
			for j := range m.d {
				m.d[j] = c.dBias + r.NormFloat64()
			}
			for k := range m.c {
				m.c[k] = r.NormFloat64()
			}
			ctx := []int{c.q}
			var cond []float32
			if c.cond {
				m.cond = make([]float32, c.v)
				for j := range m.cond {
					m.cond[j] = float32(r.NormFloat64())
				}
				m.index = map[string]int{string(docKey(nil, ctx)): 0}
				cond = m.cond
			}
			want := crbmExactGibbs(m, cond, c.q)
			sum, sum2 := make([]float64, c.v), make([]float64, c.v)
			dst := make([]float64, c.v)
			for call := range c.calls {
				m.Distances(ctx, []int{c.q}, rand.New(rand.NewPCG(uint64(call), 77)), dst)
				for j, x := range dst {
					sum[j] -= x
					sum2[j] += x * x
				}
			}
			n := float64(c.calls)
			for j := range want {
				mean := sum[j] / n
				se := math.Sqrt(math.Max(sum2[j]/n-mean*mean, 0) / (n - 1))
				if math.Abs(mean-want[j]) > 5*se+1e-12 {
					t.Errorf("unit %d: mean activation %v, want %v (exact) ± 5·%v", j, mean, want[j], se)
				}
			}
			t.Logf("exact %.4f", want)
		})
	}
}

// TestCRBMSampleVisible checks the byte-at-a-time Bernoulli sampler against
// its definition: unit j is on with probability thr_j/2³², independently of
// the others, and the clamped query is never reported. The thresholds lie
// on and around the byte boundaries of the top-byte comparison.
func TestCRBMSampleVisible(t *testing.T) {
	thr := []uint32{
		0, 1 << 12, 0x00ABCDEF, 0x00FFFFFF, 0x00800000, 0x00010000, 0x00400000, 0x00C00000,
		0x01000000, 0x01000001, 0x05123456, 0x80000000, 0xFFFFFFFF, 0x00FFFFFF, 0xFF000000, 0,
	}
	top := make([]uint64, 2)
	for j, x := range thr {
		top[j/8] |= uint64(x>>24) << (8 * (j % 8))
	}
	const q = 15 // clamped, threshold 0: never reported even if sampled
	var g gibbsWS
	g.src.Seed(3, 5)
	const n = 1 << 21
	count := make([]int, len(thr))
	both := 0 // units 4 and 11 on together
	var active []int32
	for range n {
		active = g.sampleVisible(active[:0], thr, top, q)
		on4, on11 := false, false
		for _, j := range active {
			count[j]++
			on4 = on4 || j == 4
			on11 = on11 || j == 11
		}
		if on4 && on11 {
			both++
		}
	}
	for j, c := range count {
		p := float64(thr[j]) / (1 << 32)
		se := math.Sqrt(p * (1 - p) / n)
		if got := float64(c) / n; math.Abs(got-p) > 5*se+1e-12 {
			t.Errorf("unit %d: frequency %v, want %v ± 5·%v", j, got, p, se)
		}
	}
	// Independence: P(v_4 = v_11 = 1) = p_4·p_11.
	p := float64(thr[4]) / (1 << 32) * float64(thr[11]) / (1 << 32)
	if got, se := float64(both)/n, math.Sqrt(p*(1-p)/n); math.Abs(got-p) > 5*se {
		t.Errorf("joint frequency of units 4 and 11: %v, want %v ± 5·%v", got, p, se)
	}
	if count[q] != 0 {
		t.Errorf("clamped query reported %d times, want 0", count[q])
	}
}

// TestCRBMBernoulliLogit checks the hidden-unit sampler: a unit with
// pre-activation a is on with probability σ(a), for a on both sides of and
// exactly at the logit bounds of the top-byte test.
func TestCRBMBernoulliLogit(t *testing.T) {
	var g gibbsWS
	g.src.Seed(9, 9)
	const n = 1 << 20
	for _, a := range []float64{math.Inf(-1), -30, -6.2, crbmLogit[1], -0.7, 0, crbmLogit[128] + 1e-9, 2.3, crbmLogit[255], 9, math.Inf(1)} {
		p := sigmoid(a)
		c := 0
		for range n {
			if g.bernoulliLogit(a) {
				c++
			}
		}
		se := math.Sqrt(p * (1 - p) / n)
		if got := float64(c) / n; math.Abs(got-p) > 5*se+1e-9 {
			t.Errorf("a = %v: frequency %v, want σ(a) = %v ± 5·%v", a, got, p, se)
		}
	}
}

// TestCRBMFillRowProduct checks that the visible probabilities computed as
// 1/(1 + exp(−b_j)·Π_k exp(−U_jk)) (whole, or from the two memoised halves)
// agree with σ(b_j + Σ_k U_jk) to 1e-13, for
// hidden patterns with 0 to H units on, and that units whose weights are too
// large for the product (|b_j| + Σ_k |U_jk| > crbmExpRange) use σ directly.
func TestCRBMFillRowProduct(t *testing.T) {
	const v, nh = 13, 6
	r := rand.New(rand.NewPCG(2, 3))
	m := &CRBM{v: v, h: nh, u: make([]float64, v*nh), d: make([]float64, v), c: make([]float64, nh), cfg: CRBMOptions{}.withDefaults()}
	for i := range m.u {
		m.u[i] = 4 * r.NormFloat64()
	}
	for j := range m.d {
		m.d[j] = 3 * r.NormFloat64()
	}
	m.d[4] = -800 // outside crbmExpRange: σ path
	m.d[7] = 690  // inside, with |U| sums pushing it over: σ path
	ws := m.ws()
	m.gibbsBegin(ws, nil, rand.New(rand.NewPCG(1, 1)))
	g := &ws.gibbsWS
	if g.fast[4] || g.fast[7] || !g.fast[0] {
		t.Fatalf("fast flags %v, want units 4 and 7 false, unit 0 true", g.fast)
	}
	halves := g.halfRows[0]
	for _, useHalves := range []bool{true, false} {
		// Without halfRows, fillRow multiplies over the units on (the path
		// taken when H > crbmMemoMaxHidden).
		g.halfRows[0] = nil
		if useHalves {
			g.halfRows[0] = halves
		}
		for pat := 0; pat < 1<<nh; pat += 3 {
			g.on = g.on[:0]
			for k := range nh {
				if pat>>k&1 == 1 {
					g.on = append(g.on, k)
				}
			}
			m.fillRow(g, 0, uint64(pat))
			for j := range v {
				x := m.d[j]
				for _, k := range g.on {
					x += m.u[j*nh+k]
				}
				if got, want := g.prob[j], sigmoid(x); math.Abs(got-want) > 1e-13 {
					t.Errorf("halves %v pattern %b unit %d: p %v, want σ(%v) = %v", useHalves, pat, j, got, x, want)
				}
			}
		}
	}
}

// TestCRBMMeanFieldFixedPoint checks that CRBMMeanField returns a fixed point
// of its equations: with a the returned activations, a = σ(d + W a_δ + U h)
// and h = σ(c + Uᵀa) hold to 1e-5 (the iteration stops when no unit moves by
// more than 1e-6), with the query clamped at 1 under ClampQuery and free
// otherwise.
func TestCRBMMeanFieldFixedPoint(t *testing.T) {
	for _, clamp := range []bool{false, true} {
		m, docs := trainPlantedCRBM(t, CRBMOptions{Inference: CRBMMeanField, MeanFieldIter: 1000, ClampQuery: clamp})
		for _, doc := range docs[:5] {
			dst := make([]float64, len(doc)*plantedV)
			m.Distances(doc, doc, nil, dst)
			ws := m.ws()
			cond := m.condition(ws, doc)
			for i, q := range doc {
				a := make([]float64, plantedV)
				for j := range a {
					a[j] = -dst[i*plantedV+j]
				}
				h := make([]float64, m.h)
				for k := range h {
					x := m.c[k]
					for j := range a {
						x += m.u[j*m.h+k] * a[j]
					}
					h[k] = sigmoid(x)
				}
				for j := range a {
					x := m.d[j] + float64(cond[j])
					for k := range h {
						x += m.u[j*m.h+k] * h[k]
					}
					want := sigmoid(x)
					if j == q && clamp {
						want = 1
					}
					if math.Abs(a[j]-want) > 1e-5 {
						t.Errorf("clamp %v doc %v query %d unit %d: activation %v, fixed point %v", clamp, doc, q, j, a[j], want)
					}
				}
			}
			m.pool.Put(ws)
		}
	}
}
