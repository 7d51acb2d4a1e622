package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/taglens/taglens/ml/topic"
)

// LDA is the LDA baseline (paper §2.3, §6.2.5): the distance from query term q
// to term j in the context of document δ is the paper's Eq. 1 (topic.TermKL)
// under θ(δ) = p(φ|δ), with equal term priors p(τ) = 1/V:
//
//	e(q, τ_j | δ) = V Σ_c θ_c (p(τ_q|φ_c) − p(τ_j|φ_c)) log(p(τ_q|φ_c)/p(τ_j|φ_c)).
//
// θ(δ) is folded in with the topics fixed (topic.LDA.InferTo, Gibbs with the
// rng given to Distances). The paper uses the same number of topics as the
// model's local context; NewLDA can wrap that very model. Safe for concurrent
// use.
type LDA struct{ topicBaseline }

// NewLDA returns the LDA baseline over a fitted model (not copied; it must not
// change afterwards).
func NewLDA(m *topic.LDA) *LDA {
	return &LDA{newTopicBaseline(NameLDA, m)}
}

// TrainLDA fits LDA with k topics (k > 0; the caller passes the local context's
// topic count) and the package defaults of topic.LDAConfig on the training
// documents docs (term indices in [0, v)), seeded by seed, and returns the
// baseline. progress and ctx are passed to topic.FitLDA.
func TrainLDA(ctx context.Context, docs [][]int, v, k int, seed uint64, progress func(iter int, logLik float64)) (*LDA, error) {
	if k <= 0 {
		return nil, fmt.Errorf("baselines: LDA: %d topics", k)
	}
	m, err := topic.FitLDA(ctx, docs, v, topic.LDAConfig{K: k}, rand.New(rand.NewPCG(seed, 0x1da)), progress)
	if err != nil {
		return nil, fmt.Errorf("baselines: LDA: %w", err)
	}
	return NewLDA(m), nil
}

// topicBaseline ranks by Eq. 1 under the folded-in topic distribution of the
// context, for any topic.TermTopicModel.
type topicBaseline struct {
	name string
	m    topic.TermTopicModel
	kl   *topic.KLTable
	pool sync.Pool // *[]float64 of length K
}

func newTopicBaseline(name string, m topic.TermTopicModel) topicBaseline {
	return topicBaseline{name: name, m: m, kl: topic.NewKLTable(m)}
}

// Name returns the report name ("lda" or "plsa").
func (b *topicBaseline) Name() string { return b.name }

// Contextual returns true: θ(δ) depends on the document.
func (b *topicBaseline) Contextual() bool { return true }

// VocabSize returns V.
func (b *topicBaseline) VocabSize() int { return b.m.VocabSize() }

// Topics returns the number of topics.
func (b *topicBaseline) Topics() int { return b.m.NumTopics() }

// Distances fills dst[i*V+j] with Eq. 1 from queries[i] to term j under θ(ctx)
// (see LDA). ctx's terms must be in [0, V); an empty ctx gets the fold-in's
// prior. It panics if len(dst) != len(queries)·V or a term is out of range.
func (b *topicBaseline) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	v, k := b.m.VocabSize(), b.m.NumTopics()
	if len(dst) != len(queries)*v {
		panic(fmt.Sprintf("baselines: %s.Distances: len(dst) = %d, want %d", b.name, len(dst), len(queries)*v))
	}
	if len(queries) == 0 {
		return
	}
	tp, _ := b.pool.Get().(*[]float64)
	if tp == nil {
		t := make([]float64, k)
		tp = &t
	}
	defer b.pool.Put(tp)
	theta := *tp
	b.m.InferTo(theta, ctx, rng)
	b.kl.TermsKLTo(dst, theta, queries)
}
