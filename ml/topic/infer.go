package topic

import (
	"math"
	"math/rand/v2"

	"github.com/taglens/taglens/ml/internal/defaults"
	"gonum.org/v1/gonum/mathext"
)

// foldWorkspace holds the per-call buffers of InferTo and InferVBTo.
type foldWorkspace struct {
	ndk []int32
	z   []int32
	p   []float64 // K
	acc []float64 // K
	g   []float64 // K (VB: γ)
	eg  []float64 // K (VB: exp ψ(γ))
}

func (m *LDA) getWS() *foldWorkspace {
	if ws, ok := m.pool.Get().(*foldWorkspace); ok {
		return ws
	}
	k := m.K
	return &foldWorkspace{ndk: make([]int32, k), p: make([]float64, k), acc: make([]float64, k),
		g: make([]float64, k), eg: make([]float64, k)}
}

func (m *LDA) checkDoc(doc []int) {
	for _, w := range doc {
		if w < 0 || w >= m.V {
			panic("topic: term index out of range")
		}
	}
}

// InferTo fills dst (length K) with the topic proportions p(φ_k|δ) of document
// doc (paper Eq. 3) by folding it in with the topics fixed: Gibbs sampling of
// the document's token assignments from
//
//	p(z_i=k | z_-i) ∝ (n_dk^{-i} + α) p(τ_{w_i}|φ_k),
//
// discarding m.FoldBurnIn sweeps and averaging the posterior mean
// (n_dk+α)/(N_d+Kα) over the next m.FoldSamples sweeps. An empty document gets
// the prior mean 1/K. Repeated terms count as repeated tokens.
//
// rng is the only source of randomness: the same rng state gives the same
// result, so a caller wanting one context vector per document seeds rng from
// the document. InferTo does not allocate once warm and is safe for concurrent
// use (each call takes its own workspace from a pool). It panics if len(dst)
// != K or a term is out of range.
func (m *LDA) InferTo(dst []float64, doc []int, rng *rand.Rand) {
	k := m.K
	if m.emptyDoc(dst, doc, "InferTo") {
		return
	}
	ws := m.getWS()
	defer m.pool.Put(ws)
	if cap(ws.z) < len(doc) {
		ws.z = make([]int32, len(doc))
	}
	z := ws.z[:len(doc)]
	ndk, p, acc := ws.ndk, ws.p, ws.acc
	clear(ndk)
	clear(acc)
	alpha := m.Alpha
	// Initialise sequentially, each token given the ones before it.
	for i, w := range doc {
		z[i] = m.drawFold(p, ndk, w, alpha, rng)
		ndk[z[i]]++
	}
	burn, samples := m.FoldBurnIn, m.FoldSamples
	defaults.Positive(&burn, DefaultFoldBurnIn)
	defaults.Positive(&samples, DefaultFoldSamples)
	for sweep := 0; sweep < burn+samples; sweep++ {
		for i, w := range doc {
			ndk[z[i]]--
			z[i] = m.drawFold(p, ndk, w, alpha, rng)
			ndk[z[i]]++
		}
		if sweep >= burn {
			for t := range acc {
				acc[t] += float64(ndk[t]) + alpha
			}
		}
	}
	norm := 1 / (float64(samples) * (float64(len(doc)) + float64(k)*alpha))
	for t := range dst {
		dst[t] = acc[t] * norm
	}
}

// drawFold samples a topic for term w given the other tokens' counts ndk.
func (m *LDA) drawFold(p []float64, ndk []int32, w int, alpha float64, rng *rand.Rand) int32 {
	col := m.phiT[w*m.K : (w+1)*m.K]
	sum := 0.0
	for t, f := range col {
		sum += (float64(ndk[t]) + alpha) * f
		p[t] = sum
	}
	u := rng.Float64() * sum
	// Binary search on the cumulative sums.
	lo, hi := 0, len(p)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if p[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return int32(lo)
}

// InferVBTo fills dst (length K) with a deterministic estimate of p(φ_k|δ):
// the normalised variational Dirichlet parameter γ of Blei, Ng & Jordan 2003
// (§5.2) with the topics fixed, iterating
//
//	ϕ_ik ∝ p(τ_{w_i}|φ_k) exp ψ(γ_k),   γ_k = α + Σ_i ϕ_ik
//
// from γ_k = α + N_d/K until the largest change of γ is below 1e-6 or 100
// iterations. An empty document gets the prior mean 1/K. Safe for concurrent
// use; no allocation once warm. It panics if len(dst) != K or a term is out of
// range.
func (m *LDA) InferVBTo(dst []float64, doc []int) {
	k := m.K
	if m.emptyDoc(dst, doc, "InferVBTo") {
		return
	}
	ws := m.getWS()
	defer m.pool.Put(ws)
	g, eg, acc := ws.g, ws.eg, ws.acc
	alpha := m.Alpha
	for t := range g {
		g[t] = alpha + float64(len(doc))/float64(k)
	}
	for it := 0; it < 100; it++ {
		for t := range eg {
			eg[t] = math.Exp(mathext.Digamma(g[t]))
		}
		clear(acc)
		for _, w := range doc {
			col := m.phiT[w*k : (w+1)*k]
			s := 0.0
			for t, f := range col {
				s += f * eg[t]
			}
			inv := 1 / s
			for t, f := range col {
				acc[t] += f * eg[t] * inv
			}
		}
		change := 0.0
		for t := range g {
			ng := alpha + acc[t]
			change = math.Max(change, math.Abs(ng-g[t]))
			g[t] = ng
		}
		if change < 1e-6 {
			break
		}
	}
	sum := 0.0
	for _, v := range g {
		sum += v
	}
	for t := range dst {
		dst[t] = g[t] / sum
	}
}

// emptyDoc checks the arguments of the inference fn (it panics if len(dst) !=
// K or a term of doc is out of range) and, when doc is empty, sets dst to the
// uniform proportions and reports true.
func (m *LDA) emptyDoc(dst []float64, doc []int, fn string) bool {
	if len(dst) != m.K {
		panic("topic: " + fn + ": len(dst) != K")
	}
	m.checkDoc(doc)
	if len(doc) > 0 {
		return false
	}
	for i := range dst {
		dst[i] = 1 / float64(m.K)
	}
	return true
}
