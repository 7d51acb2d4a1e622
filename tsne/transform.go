package tsne

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// transformInitK is the number of nearest reference points whose embedding
// median initialises a new point (openTSNE's default k for "median").
const transformInitK = 25

// Transform places the rows of xNew (m × d, d as in Embed) into the existing
// embedding without moving its points, as openTSNE's transform does: every new
// point starts at the coordinate-wise median of the embedded positions of its
// 25 nearest reference points and is then optimised alone against the fixed
// reference embedding, minimising its own
//
//	C_i = Σ_j p_{j|i} ln(p_{j|i}/q_{j|i}),  q_{j|i} = w_ij / Σ_k w_ik,  w_ij = (1+‖y_i−y_j‖²)⁻¹,
//	∂C_i/∂y_i = 2 (Σ_j p_{j|i} w_ij (y_i−y_j) − Σ_k w_ik² (y_i−y_k) / Σ_k w_ik),
//
// where j runs over the ⌊3·perplexity⌋ nearest reference points and k over all
// reference points (Barnes-Hut sums with opt.Theta, exact sums when the
// embedding was made with Exact). New points do not interact, so each result
// does not depend on the other rows of xNew. Unlike openTSNE, the normalisation
// Σ_k w_ik is per new point.
//
// Defaults differ from Embed: Perplexity 5, Iterations 250, LearningRate 0.1,
// no exaggeration, momentum 0.8. opt.Init, opt.Method and
// opt.EarlyExaggeration are ignored. The result is m×2.
// Kept in one function: the affinities to the fixed points and the gradient
// loop of the new points share their buffers through one optimisation.
func (e *Embedding) Transform(ctx context.Context, xNew [][]float64, opt Options) ([][]float64, error) {
	if e == nil || e.tree == nil {
		return nil, fmt.Errorf("tsne: transform: embedding was not made by Embed")
	}
	if len(xNew) == 0 {
		return [][]float64{}, nil
	}
	flat, m, _, err := flatten(xNew, e.d)
	if err != nil {
		return nil, fmt.Errorf("tsne: transform: %w", err)
	}
	qd := e.d // dimension of the query points
	if e.red != nil {
		flat, qd = e.red.project(flat, m), e.red.c
	}
	n := e.n
	perp := opt.Perplexity
	if perp == 0 {
		perp = 5
	}
	if !(perp > 0) || math.IsInf(perp, 0) {
		return nil, fmt.Errorf("tsne: transform: perplexity %v must be positive", perp)
	}
	if 3*perp >= float64(n) {
		return nil, fmt.Errorf("tsne: transform: %w: perplexity %v, %d reference points", ErrPerplexity, perp, n)
	}
	k := numNeighbours(perp, n)
	kq := max(k, min(n, transformInitK))
	workers := opt.workers()

	tg := &transformGrad{ref: e.y, m: m, k: k, workers: workers,
		nbr: make([]int32, m*k), p: make([]float64, m*k),
		klpart: make([]float64, numBlocks(m)), attr: make([]float64, 2*m)}
	y := make([]float64, 2*m)
	forRange(m, workers, func(_, lo, hi int) {
		s := e.tree.newSearcher(kq)
		nb := make([]int32, kq)
		dist := make([]float64, kq)
		xs := make([]float64, 0, kq)
		ys := make([]float64, 0, kq)
		for i := lo; i < hi; i++ {
			if ctx.Err() != nil {
				return
			}
			s.search(flat[i*qd:(i+1)*qd], -1, nb, dist)
			copy(tg.nbr[i*k:(i+1)*k], nb[:k])
			d2 := dist[:k]
			for j := range d2 {
				d2[j] *= d2[j]
			}
			calibrate(d2, tg.p[i*k:(i+1)*k], perp)
			xs, ys = xs[:0], ys[:0]
			for _, j := range nb[:min(kq, transformInitK)] {
				xs = append(xs, e.y[2*j])
				ys = append(ys, e.y[2*j+1])
			}
			y[2*i], y[2*i+1] = median(xs), median(ys)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	theta := opt.theta()
	if e.Method == Exact {
		theta = 0
	}
	tg.th2 = theta * theta
	tg.tree.build(e.y, n)
	for _, v := range tg.p {
		if v > 0 {
			tg.plogp += v * math.Log(v)
		}
	}

	iters := opt.Iterations
	if iters == 0 {
		iters = 250
	}
	lr := opt.LearningRate
	if lr == 0 {
		lr = 0.1
	}
	sched := schedule{iters: iters, lr: lr, exaggeration: 1, momentum0: 0.8, momentum1: 0.8,
		klEvery: opt.klEvery(), progress: opt.Progress}
	if _, err := optimize(ctx, tg, y, sched); err != nil {
		return nil, err
	}
	if err := checkFinite(y); err != nil {
		return nil, fmt.Errorf("tsne: transform: %w", err)
	}
	out := make([][]float64, m)
	for i := range out {
		out[i] = y[2*i : 2*i+2 : 2*i+2]
	}
	return out, nil
}

// median returns the median of xs, reordering xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	h := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[h]
	}
	return (xs[h-1] + xs[h]) / 2
}

// transformGrad is the gradient of Σ_i C_i over the new points (see Transform).
type transformGrad struct {
	ref     []float64 // fixed reference embedding, flat n×2
	tree    quadTree
	th2     float64
	m, k    int
	nbr     []int32
	p       []float64 // p_{j|i}, m×k
	plogp   float64
	workers int
	attr    []float64
	klpart  []float64
}

func (t *transformGrad) grad(y, g []float64, _ float64, wantKL bool) float64 {
	forBlocks(t.m, t.workers, func(blk, lo, hi int) {
		var stack []int32
		kl := 0.0
		for i := lo; i < hi; i++ {
			yi0, yi1 := y[2*i], y[2*i+1]
			var a0, a1 float64
			for t2, j := range t.nbr[i*t.k : (i+1)*t.k] {
				d0, d1 := yi0-t.ref[2*j], yi1-t.ref[2*j+1]
				q := 1 + d0*d0 + d1*d1
				pw := t.p[i*t.k+t2] / q
				a0 += pw * d0
				a1 += pw * d1
				if wantKL {
					kl += t.p[i*t.k+t2] * math.Log(q)
				}
			}
			var r0, r1, z float64
			r0, r1, z, stack = t.tree.repulse(yi0, yi1, -1, t.th2, stack)
			g[2*i] = 2 * (a0 - r0/z)
			g[2*i+1] = 2 * (a1 - r1/z)
			if wantKL {
				kl += math.Log(z)
			}
		}
		t.klpart[blk] = kl
	})
	if !wantKL {
		return math.NaN()
	}
	// Σ_i C_i = Σ p ln p + Σ_ij p ln(1+d²) + Σ_i ln Z_i.
	return t.plogp + sumOrdered(t.klpart)
}
