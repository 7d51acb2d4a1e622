package ce

import (
	"context"
	"math/rand/v2"

	"github.com/taglens/taglens/ml/topic"
)

// Settings of the local-context LDA (§3.2).
const (
	// selectDocs caps the training documents of the automatic choice of |Φ|.
	selectDocs = 8000
	// ldaSweeps is the number of sweeps of the final fit.
	ldaSweeps = 150
)

// selectGrid is the candidate |Φ| of the automatic choice.
var selectGrid = []int{10, 20, 30}

// fitContext fits the LDA of the local context on the training documents
// (collapsed Gibbs sampling, ml/topic) with k topics, or, when k is 0, with |Φ|
// chosen automatically by this rule: ml/topic.SelectK's held-out perplexity
// (document completion) of each candidate of {10, 20, 30} — around the 19-25
// topics the paper's HDP found on corpora of 136-292 tags — fitted with 50
// sweeps on a seeded random subset of at most 8,000 training documents, 20 % of
// them held out; the smallest K within 2 % of the best perplexity wins (the
// knee, SelectK's rule). The final fit uses all training documents, 150 sweeps
// (100 burn-in): on tag documents of ~4 terms the log-likelihood is flat well
// before that.
//
// Why this is enough: on tag documents the held-out perplexity is nearly flat
// in K (differences between seeds as large as between K), so a finer grid or
// more sweeps buy nothing, and the subset makes the choice cheaper than the
// final fit (docs/quality-notes.md, D6).
//
// sweep, when not nil, is called every 10 sweeps of the final fit with the
// sweeps done, their number and the K chosen (for the training's progress).
func fitContext(ctx context.Context, docs [][]int, v, k int, seed uint64, sweep func(done, total, k int)) (*topic.LDA, error) {
	cfg := topic.LDAConfig{K: k, Iterations: ldaSweeps, BurnIn: 100}
	var sel []topic.KScore
	if k == 0 {
		rng := rand.New(rand.NewPCG(seed, 3))
		sub := docs
		if len(docs) > selectDocs {
			sub = make([][]int, selectDocs)
			for i, j := range rng.Perm(len(docs))[:selectDocs] {
				sub[i] = docs[j]
			}
		}
		sc := cfg
		sc.Select = topic.SelectConfig{Grid: selectGrid, Iterations: 50, HeldOut: 0.2}
		var err error
		if cfg.K, sel, err = topic.SelectK(ctx, sub, v, sc, rng); err != nil {
			return nil, err
		}
	}
	var progress func(int, float64)
	if sweep != nil {
		sweep(0, cfg.Iterations, cfg.K)
		progress = func(it int, _ float64) { sweep(it, cfg.Iterations, cfg.K) }
	}
	lda, err := topic.FitLDA(ctx, docs, v, cfg, rand.New(rand.NewPCG(seed, 1)), progress)
	if err != nil {
		return nil, err
	}
	lda.Selection = sel
	return lda, nil
}

// randomP2 is the expected priming P@2 of a uniformly random ranking: with the
// query term q ∈ δ and |δ|−1 other relevant terms among V−1... every position
// holds a relevant term with probability |δ|/V, so E[P@2] = mean over queries of
// |δ|/V (linearity of expectation).
func randomP2(docs [][]int, v int) float64 {
	var s float64
	var n int
	for _, d := range docs {
		s += float64(len(d)) * float64(len(d)) / float64(v)
		n += len(d)
	}
	return s / float64(n)
}
