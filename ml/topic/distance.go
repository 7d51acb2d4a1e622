package topic

import (
	"math"
	"math/rand/v2"
)

// TermTopicModel is a fitted topic model seen as term-topic probabilities and a
// fold-in of new documents; *LDA and *PLSA implement it.
type TermTopicModel interface {
	NumTopics() int
	VocabSize() int
	// TermTopics returns p(τ_w|φ_k) for k = 0..K-1 (read-only).
	TermTopics(w int) []float64
	// InferTo fills dst (length K) with p(φ_k|δ) of doc, topics fixed.
	InferTo(dst []float64, doc []int, rng *rand.Rand)
}

// TermKL returns the paper's Eq. 1 (§2.3), the divergence between terms τ1 and
// τ2 under the topic distribution θ(δ) of a document:
//
//	KL(τ1, τ2 | θ(δ)) = Σ_c θ_c / p(τ1) · (p(τ1|φ_c) − p(τ2|φ_c)) · log(p(τ1|φ_c) / p(τ2|φ_c))
//
// where theta[c] = θ_c = p(φ_c|δ), p1[c] = p(τ1|φ_c), p2[c] = p(τ2|φ_c) and
// pTau1 = p(τ1). The paper derives it from the symmetric KL divergence of the
// topic posteriors p(φ_c|τ) "assuming equal priors for all the terms", so the
// baselines pass pTau1 = 1/V (a constant factor that does not change a
// ranking). Each summand is ≥ 0, so the result is ≥ 0 and zero when p1 == p2.
// Probabilities must be positive. It panics if the lengths differ.
func TermKL(theta, p1, p2 []float64, pTau1 float64) float64 {
	if len(p1) != len(theta) || len(p2) != len(theta) {
		panic("topic: TermKL: length mismatch")
	}
	s := 0.0
	for c, th := range theta {
		s += eq1Term(th, p1[c], math.Log(p1[c]), p2[c], math.Log(p2[c]))
	}
	return s / pTau1
}

// eq1Term is one summand of Eq. 1 without the 1/p(τ1) factor, with the logs of
// the two probabilities precomputed.
func eq1Term(theta, a, logA, b, logB float64) float64 {
	return theta * (a - b) * (logA - logB)
}

// TermKLTo fills dst (length V) with Eq. 1 from query term q to every term j
// of m under theta, with equal term priors p(τ) = 1/V (see TermKL): dst[j] =
// KL(τ_q, τ_j | θ). logs, of length V·K, holds log p(τ_j|φ_k) at [j*K+k]
// (see LogTermTopics). dst[q] is 0. It panics on a length mismatch.
func TermKLTo(dst, theta []float64, m TermTopicModel, logs []float64, q int) {
	k, v := m.NumTopics(), m.VocabSize()
	if len(dst) != v || len(theta) != k || len(logs) != v*k {
		panic("topic: TermKLTo: length mismatch")
	}
	pq := m.TermTopics(q)
	lq := logs[q*k : (q+1)*k]
	fv := float64(v)
	for j := range dst {
		pj := m.TermTopics(j)
		lj := logs[j*k : (j+1)*k]
		s := 0.0
		for c, th := range theta {
			s += eq1Term(th, pq[c], lq[c], pj[c], lj[c])
		}
		dst[j] = s * fv
	}
	dst[q] = 0
}

// LogTermTopics returns the V·K table log p(τ_j|φ_k) at [j*K+k] used by TermKLTo.
func LogTermTopics(m TermTopicModel) []float64 {
	k, v := m.NumTopics(), m.VocabSize()
	out := make([]float64, v*k)
	for j := 0; j < v; j++ {
		for c, p := range m.TermTopics(j) {
			out[j*k+c] = math.Log(p)
		}
	}
	return out
}
