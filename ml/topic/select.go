package topic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/taglens/taglens/ml/internal/defaults"
)

// SelectConfig holds the tunables of SelectK. The zero value means the defaults.
type SelectConfig struct {
	// Grid is the list of topic counts tried (default DefaultKGrid; values
	// above V are dropped).
	Grid []int
	// HeldOut is the fraction of documents held out to measure perplexity
	// (default 0.1).
	HeldOut float64
	// Tolerance defines the rule: the chosen K is the smallest K of the grid
	// whose held-out perplexity is at most (1+Tolerance) times the best one
	// (default 0.02). LDA's held-out perplexity often keeps falling slowly with
	// K; this picks the knee instead of the largest K.
	Tolerance float64
	// Iterations is the number of Gibbs sweeps of each candidate fit (default
	// 150, of which two thirds are burn-in).
	Iterations int
	// Workers is the number of candidate fits run at once (default 2). The
	// result does not depend on it.
	Workers int
	// Progress, when not nil, is called once per K tried, in grid order.
	Progress func(k int, perplexity float64)
}

// DefaultKGrid is the default grid of SelectK. The paper's HDP chose 19-25
// topics on corpora of 136-292 tags.
var DefaultKGrid = []int{5, 10, 15, 20, 25, 30, 40, 50}

// KScore is the held-out perplexity of one candidate topic count.
type KScore struct {
	K          int
	Perplexity float64
}

// SelectK chooses the number of topics of LDA by held-out perplexity: it holds
// out a random cfg.Select.HeldOut fraction of the documents (drawn from rng),
// fits LDA with each K of the grid on the rest (using cfg's priors and
// cfg.Select.Iterations sweeps), computes the document-completion perplexity
// (see LDA.Perplexity) of the held-out documents, and returns the smallest K
// within cfg.Select.Tolerance of the best perplexity, with every score in grid
// order. With fewer than 20 non-empty documents it returns the smallest K of
// the grid without fitting. Candidate fits run on Workers goroutines, each
// with its own random stream drawn from rng beforehand, so the result depends
// only on the inputs and rng.
// Kept in one function: the grid, the per-candidate random streams and the
// worker pool share state that the selection reads in grid order.
func SelectK(ctx context.Context, docs [][]int, v int, cfg LDAConfig, rng *rand.Rand) (int, []KScore, error) {
	cfg = cfg.withDefaults()
	sc := cfg.Select
	grid := sc.Grid
	if len(grid) == 0 {
		grid = DefaultKGrid
	}
	var ks []int
	for _, k := range grid {
		if k > 0 && k <= v {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		ks = []int{max(1, min(v, 2))}
	}
	if sc.HeldOut <= 0 || sc.HeldOut >= 1 {
		sc.HeldOut = 0.1
	}
	defaults.Positive(&sc.Tolerance, 0.02)
	defaults.Positive(&sc.Iterations, 150)
	defaults.Positive(&sc.Workers, 2)
	var nonEmpty []int
	for i, d := range docs {
		if len(d) > 0 {
			nonEmpty = append(nonEmpty, i)
		}
	}
	if len(nonEmpty) < 20 {
		return ks[0], nil, nil
	}
	rng.Shuffle(len(nonEmpty), func(i, j int) { nonEmpty[i], nonEmpty[j] = nonEmpty[j], nonEmpty[i] })
	nh := max(1, int(math.Round(sc.HeldOut*float64(len(nonEmpty)))))
	held := make([][]int, nh)
	for i, j := range nonEmpty[:nh] {
		held[i] = docs[j]
	}
	train := make([][]int, 0, len(nonEmpty)-nh)
	for _, j := range nonEmpty[nh:] {
		train = append(train, docs[j])
	}
	seeds := make([][2]uint64, len(ks))
	for i := range seeds {
		seeds[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	scores := make([]KScore, len(ks))
	errs := make([]error, len(ks))
	var wg sync.WaitGroup
	for w := 0; w < sc.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(ks); i += sc.Workers {
				if ctx.Err() != nil {
					errs[i] = ctx.Err()
					continue
				}
				r := rand.New(rand.NewPCG(seeds[i][0], seeds[i][1]))
				c := cfg
				c.K = ks[i]
				c.Iterations = sc.Iterations
				c.BurnIn = sc.Iterations * 2 / 3
				c.SampleLag = max(1, (sc.Iterations-c.BurnIn)/5)
				s, err := newSampler(train, v, c, r)
				if err != nil {
					errs[i] = err
					continue
				}
				m, err := s.run(ctx, nil)
				if err != nil {
					errs[i] = err
					continue
				}
				p, err := m.Perplexity(held, r)
				scores[i] = KScore{K: ks[i], Perplexity: p}
				errs[i] = err
			}
		}(w)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, nil, fmt.Errorf("select K: %w", err)
	}
	best := math.Inf(1)
	for _, s := range scores {
		if sc.Progress != nil {
			sc.Progress(s.K, s.Perplexity)
		}
		best = math.Min(best, s.Perplexity)
	}
	for _, s := range scores {
		if s.Perplexity <= (1+sc.Tolerance)*best {
			return s.K, scores, nil
		}
	}
	return ks[len(ks)-1], scores, nil
}

// Perplexity returns the held-out document-completion perplexity of docs
// (Wallach et al. 2009, "estimated θ"): each document's tokens are shuffled
// with rng (tag order in a source often has structure) and split alternately
// into an observed half (shuffled positions 0, 2, 4, ...) and a held-out half
// (1, 3, 5, ...); θ is folded in from the observed half with InferTo and
//
//	perplexity = exp(−Σ_held log Σ_k θ_k p(τ_w|φ_k) / N_held).
//
// A one-term document has its only term held out and θ = the prior mean.
// rng drives the shuffles and the fold-in. It returns an error when docs hold
// no token. It panics if a term is out of range.
func (m *LDA) Perplexity(docs [][]int, rng *rand.Rand) (float64, error) {
	theta := make([]float64, m.K)
	var buf, obs []int
	ll, n := 0.0, 0
	for _, d := range docs {
		m.checkDoc(d)
		if len(d) == 0 {
			continue
		}
		buf = append(buf[:0], d...)
		rng.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
		obs = obs[:0]
		start := 0
		if len(buf) > 1 {
			for i := 0; i < len(buf); i += 2 {
				obs = append(obs, buf[i])
			}
			start = 1
		}
		m.InferTo(theta, obs, rng)
		for i := start; i < len(buf); i += 2 {
			col := m.TermTopics(buf[i])
			p := 0.0
			for k, f := range col {
				p += theta[k] * f
			}
			ll += math.Log(p)
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("topic: perplexity: %w", ErrNoTokens)
	}
	return math.Exp(-ll / float64(n)), nil
}
