package baselines

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

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
// of CRBMOptions; the implementation avoids recomputing what does not change:
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
