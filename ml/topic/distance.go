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
// the two probabilities precomputed. The product is rounded explicitly, so no
// build fuses it into the caller's sum: klGroups' bits.
func eq1Term(theta, a, logA, b, logB float64) float64 {
	return float64(theta * (a - b) * (logA - logB))
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

// KLTable holds what Eq. 1 from a query to every term needs of a model, laid
// out for TermKLTo: log p(τ_j|φ_k) (LogTermTopics), and both p and log p in
// blocks of 16 terms, topic by topic, for the AVX2 kernel that computes 16
// terms' sums at once. It is immutable and safe for concurrent use.
type KLTable struct {
	m      TermTopicModel
	k, v   int
	logs   []float64 // V×K
	pb, lb []float64 // ⌊V/16⌋ blocks of K rows of 16 values
}

// NewKLTable returns the table of m (which must not change afterwards).
func NewKLTable(m TermTopicModel) *KLTable {
	k, v := m.NumTopics(), m.VocabSize()
	t := &KLTable{m: m, k: k, v: v, logs: LogTermTopics(m)}
	if useKLGroups {
		g := v / 16
		t.pb = make([]float64, g*k*16)
		t.lb = make([]float64, g*k*16)
		for j := 0; j < g*16; j++ {
			p := m.TermTopics(j)
			for c := 0; c < k; c++ {
				at := (j/16)*k*16 + c*16 + j%16
				t.pb[at] = p[c]
				t.lb[at] = t.logs[j*k+c]
			}
		}
	}
	return t
}

// TermKLTo is TermKLTo(dst, theta, m, logs, q) of the table's model: the same
// values bit for bit, each term's sum taken over the topics in the same order
// with the same roundings (the kernel only puts 16 terms side by side).
func (t *KLTable) TermKLTo(dst, theta []float64, q int) {
	t.TermsKLTo(dst, theta, []int{q})
}

// TermsKLTo fills dst (len(queries)·V) with TermKLTo of each query in turn
// under the same theta (the queries of one document). Block by block of 16
// terms, all the queries pass over the block while it is in the cache, so
// the tables are read once per call rather than once per query.
func (t *KLTable) TermsKLTo(dst, theta []float64, queries []int) {
	k, v := t.k, t.v
	if len(dst) != len(queries)*v || len(theta) != k {
		panic("topic: KLTable.TermsKLTo: length mismatch")
	}
	if !useKLGroups || k == 0 {
		for i, q := range queries {
			TermKLTo(dst[i*v:(i+1)*v], theta, t.m, t.logs, q)
		}
		return
	}
	g := v / 16
	for b := 0; b < g; b++ {
		for i, q := range queries {
			klGroups(&theta[0], &t.m.TermTopics(q)[0], &t.logs[q*k], k, &t.pb[b*k*16], &t.lb[b*k*16], 1, &dst[i*v+b*16])
		}
	}
	fv := float64(v)
	for i, q := range queries {
		row := dst[i*v : (i+1)*v]
		pq := t.m.TermTopics(q)
		lq := t.logs[q*k : (q+1)*k]
		for j := g * 16; j < v; j++ {
			pj := t.m.TermTopics(j)
			lj := t.logs[j*k : (j+1)*k]
			s := 0.0
			for c, th := range theta {
				s += eq1Term(th, pq[c], lq[c], pj[c], lj[c])
			}
			row[j] = s
		}
		for j := range row {
			row[j] *= fv
		}
		row[q] = 0
	}
}
