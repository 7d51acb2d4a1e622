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
// model's local context (Settings.Topics). Safe for concurrent use.
type LDA struct{ topicBaseline }

// TopicOptions tunes FitLDA and FitPLSA. The zero value means the defaults.
type TopicOptions struct {
	// Topics is the number of topics; zero chooses it by held-out perplexity
	// (topic.SelectK with its defaults). The paper uses the evaluated model's
	// topic count (§6.2.5), which Train passes.
	Topics int
	// Seed seeds the fit (and the choice of the topic count).
	Seed uint64
	// Progress, if not nil, receives the reports of topic.FitLDA or
	// topic.FitPLSA.
	Progress func(TopicPoint)
}

// TopicPoint is one progress report of a topic-model fit: the sweep (LDA) or
// EM iteration (PLSA), 1-based, and the log-likelihood topic.FitLDA or
// topic.FitPLSA reports after it.
type TopicPoint struct {
	Iter   int     `json:"iter"`
	LogLik float64 `json:"log_lik"`
}

// topicProgress adapts o.Progress to the callback of topic.FitLDA and
// topic.FitPLSA (nil for nil).
func (o TopicOptions) topicProgress() func(iter int, logLik float64) {
	if o.Progress == nil {
		return nil
	}
	return func(iter int, logLik float64) { o.Progress(TopicPoint{Iter: iter, LogLik: logLik}) }
}

// FitLDA fits LDA with o.Topics topics and the package defaults of
// topic.LDAConfig on the training documents (term indices in [0, v)) and
// returns the baseline. ctx is passed to topic.FitLDA.
func FitLDA(ctx context.Context, train [][]int, v int, o TopicOptions) (*LDA, error) {
	if o.Topics < 0 {
		return nil, fmt.Errorf("baselines: LDA: %d topics", o.Topics)
	}
	m, err := topic.FitLDA(ctx, train, v, topic.LDAConfig{K: o.Topics}, rand.New(rand.NewPCG(o.Seed, 0x1da)), o.topicProgress())
	if err != nil {
		return nil, fmt.Errorf("baselines: LDA: %w", err)
	}
	return newLDA(m), nil
}

// newLDA returns the LDA baseline over a fitted model (not copied; it must not
// change afterwards).
func newLDA(m *topic.LDA) *LDA {
	return &LDA{newTopicBaseline(NameLDA, m)}
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
