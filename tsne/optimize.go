package tsne

import (
	"context"
	"math"
)

// schedule holds the optimisation hyper-parameters.
type schedule struct {
	iters             int
	lr                float64 // multiplies ∂C/∂y / 4 (openTSNE convention)
	exaggeration      float64
	exaggerationIters int
	momentum0         float64 // during exaggeration
	momentum1         float64 // afterwards
	klEvery           int
	progress          func(iter int, kl float64, y []float64) bool
	maxStep           float64 // if > 0, per-point step length is clipped to it
}

// minGain is the floor of the per-coordinate gains.
const minGain = 0.01

// optimize runs gradient descent with momentum and per-coordinate gains
// (Jacobs 1988, as in van der Maaten's and scikit-learn's t-SNE):
//
//	gain ← gain + 0.2 if sign(update) ≠ sign(grad), else gain × 0.8; gain ≥ 0.01
//	update ← momentum·update − η·gain·grad/4;  y ← y + update
//
// in place on y. It returns the number of iterations done.
func optimize(ctx context.Context, g gradienter, y []float64, s schedule) (int, error) {
	grad := make([]float64, len(y))
	update := make([]float64, len(y))
	gains := make([]float64, len(y))
	for i := range gains {
		gains[i] = 1
	}
	kl := math.NaN()
	step := s.lr / 4
	for it := 0; it < s.iters; it++ {
		if err := ctx.Err(); err != nil {
			return it, err
		}
		exag, mom := 1.0, s.momentum1
		if it < s.exaggerationIters {
			exag, mom = s.exaggeration, s.momentum0
		}
		wantKL := s.progress != nil && (it == 0 || (it+1)%s.klEvery == 0)
		if v := g.grad(y, grad, exag, wantKL); wantKL {
			kl = v
		}
		for i, gr := range grad {
			if update[i]*gr < 0 {
				gains[i] += 0.2
			} else {
				gains[i] *= 0.8
			}
			gains[i] = math.Max(gains[i], minGain)
			update[i] = mom*update[i] - step*gains[i]*gr
		}
		if s.maxStep > 0 {
			for i := 0; i < len(y); i += 2 {
				if l := math.Hypot(update[i], update[i+1]); l > s.maxStep {
					update[i] *= s.maxStep / l
					update[i+1] *= s.maxStep / l
				}
			}
		}
		for i := range y {
			y[i] += update[i]
		}
		if s.progress != nil && !s.progress(it+1, kl, y) {
			return it + 1, nil
		}
	}
	return s.iters, nil
}
