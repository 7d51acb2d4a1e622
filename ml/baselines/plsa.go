package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/taglens/taglens/ml/topic"
)

// PLSA is the PLSA baseline (paper §2.3, §6.2.5): like LDA, the distance is
// Eq. 1 under θ(δ) = p(φ|δ), here folded in by EM with p(τ|φ) fixed
// (deterministic: Distances ignores rng). Same topic count as LDA. Safe for
// concurrent use.
type PLSA struct{ topicBaseline }

// FitPLSA fits PLSA with o.Topics topics by EM to convergence of the
// likelihood (topic.PLSAConfig defaults) on the training documents (term
// indices in [0, v)), from a random start seeded by o.Seed, and returns the
// baseline. With o.Topics zero the count is LDA's choice by held-out perplexity
// (topic.SelectK), seeded by o.Seed.
func FitPLSA(ctx context.Context, train [][]int, v int, o TopicOptions) (*PLSA, error) {
	k := o.Topics
	if k < 0 {
		return nil, fmt.Errorf("baselines: PLSA: %d topics", k)
	}
	if k == 0 {
		var err error
		if k, _, err = topic.SelectK(ctx, train, v, topic.LDAConfig{}, rand.New(rand.NewPCG(o.Seed, 0x1da))); err != nil {
			return nil, fmt.Errorf("baselines: PLSA: %w", err)
		}
	}
	m, err := topic.FitPLSA(ctx, train, v, topic.PLSAConfig{K: k}, rand.New(rand.NewPCG(o.Seed, 0x9154)), o.topicProgress())
	if err != nil {
		return nil, fmt.Errorf("baselines: PLSA: %w", err)
	}
	return newPLSA(m), nil
}

// newPLSA returns the PLSA baseline over a fitted model (not copied).
func newPLSA(m *topic.PLSA) *PLSA {
	return &PLSA{newTopicBaseline(NamePLSA, m)}
}
