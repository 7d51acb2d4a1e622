package baselines

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/taglens/taglens/ml/internal/defaults"
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

// CRBMOptions tunes FitCRBM. The zero value means the defaults.
//
// The training defaults are those of MatRBM, the package the paper's CRBM is
// based on (§6.2.5: "the recommended learning rate of 0.1 with moment 0.5 ...
// based on the MatRBM package"; its rbmFit defaults are eta 0.1, momentum 0.5,
// maxepoch 50, batchsize 100, penalty 2e-4): every parameter, the condition
// weights W included, moves by the batch mean of its CD gradient with
// momentum, and the weights U and W decay by the penalty; the weights returned
// are the average of the iterates of the last five epochs (MatRBM's avglast).
type CRBMOptions struct {
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
	// FitCRBM did; the tests use it to train a CRBM whose condition is
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
	// Seed draws the initial weights and the order of the documents.
	Seed uint64
	// Progress, if not nil, is called after each epoch.
	Progress func(CRBMPoint)
}

// CRBMPoint is one training epoch of the CRBM: its number (1-based) and the
// mean squared reconstruction error Σ_j (v0_j − v1_j)² per document.
type CRBMPoint struct {
	Epoch    int     `json:"epoch"`
	ReconErr float64 `json:"recon_err"`
}

func (c CRBMOptions) withDefaults() CRBMOptions {
	defaults.Positive(&c.Hidden, 10)
	defaults.Positive(&c.LearningRate, 0.1)
	defaults.Positive(&c.Momentum, 0.5)
	switch {
	case c.Penalty == 0:
		c.Penalty = 2e-4
	case c.Penalty < 0:
		c.Penalty = 0
	}
	defaults.Positive(&c.ConditionStep, 1)
	defaults.Positive(&c.Epochs, 50)
	switch {
	case c.AverageLast == 0:
		c.AverageLast = 5
	case c.AverageLast < 0:
		c.AverageLast = 0
	}
	c.AverageLast = min(c.AverageLast, c.Epochs)
	defaults.Positive(&c.BatchSize, 100)
	defaults.Positive(&c.MeanFieldIter, 50)
	defaults.Positive(&c.Trials, 10)
	defaults.Positive(&c.Steps, 100)
	defaults.Positive(&c.BurnIn, 90)
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
// CRBMOptions.ClampQuery), so the distance is −activation.
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
	cfg  CRBMOptions
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
func (m *CRBM) Name() string { return NameCRBM }

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
// CRBMOptions.Inference for how the average is computed). rng drives the
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
