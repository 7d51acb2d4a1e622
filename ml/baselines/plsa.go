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

// NewPLSA returns the PLSA baseline over a fitted model (not copied).
func NewPLSA(m *topic.PLSA) *PLSA {
	return &PLSA{newTopicBaseline(NamePLSA, m)}
}

// TrainPLSA fits PLSA with k topics by EM to convergence of the likelihood
// (topic.PLSAConfig defaults) on docs (term indices in [0, v)), from a random
// start seeded by seed, and returns the baseline.
func TrainPLSA(ctx context.Context, docs [][]int, v, k int, seed uint64, progress func(iter int, logLik float64)) (*PLSA, error) {
	if k <= 0 {
		return nil, fmt.Errorf("baselines: PLSA: %d topics", k)
	}
	m, err := topic.FitPLSA(ctx, docs, v, topic.PLSAConfig{K: k}, rand.New(rand.NewPCG(seed, 0x9154)), progress)
	if err != nil {
		return nil, fmt.Errorf("baselines: PLSA: %w", err)
	}
	return NewPLSA(m), nil
}
