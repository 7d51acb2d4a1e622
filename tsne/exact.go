package tsne

import "math"

// gradienter computes the t-SNE gradient for one method.
type gradienter interface {
	// grad writes ∂C/∂y to g (flat n×2) for the embedding y with P multiplied
	// by exag, and, when wantKL, returns KL(P‖Q) for the unexaggerated P
	// (exact or the method's estimate); otherwise it returns NaN.
	grad(y, g []float64, exag float64, wantKL bool) float64
}

// exactGrad is the O(n²) gradient of van der Maaten & Hinton (2008), Eq. 5:
//
//	∂C/∂y_i = 4 Σ_j (p_ij − q_ij)(y_i − y_j) w_ij,  w_ij = (1+‖y_i−y_j‖²)⁻¹,  q_ij = w_ij / Z,
//
// with Z = Σ_{k≠l} w_kl, and the exact KL(P‖Q) = Σ_{i≠j} p_ij ln(p_ij/q_ij) (Eq. 2).
type exactGrad struct {
	P       []float64 // dense n×n
	n       int
	workers int
	zpart   []float64 // per block partial Z
	klpart  []float64
}

func (e *exactGrad) grad(y, g []float64, exag float64, wantKL bool) float64 {
	n := e.n
	nb := numBlocks(n)
	if len(e.zpart) != nb {
		e.zpart = make([]float64, nb)
		e.klpart = make([]float64, nb)
	}
	forBlocks(n, e.workers, func(b, lo, hi int) {
		z := 0.0
		for i := lo; i < hi; i++ {
			yi0, yi1 := y[2*i], y[2*i+1]
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
				z += 1 / (1 + d0*d0 + d1*d1)
			}
		}
		e.zpart[b] = z
	})
	Z := sumOrdered(e.zpart)
	invZ := 1 / Z
	forBlocks(n, e.workers, func(b, lo, hi int) {
		kl := 0.0
		for i := lo; i < hi; i++ {
			yi0, yi1 := y[2*i], y[2*i+1]
			row := e.P[i*n : (i+1)*n]
			var g0, g1 float64
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
				w := 1 / (1 + d0*d0 + d1*d1)
				p := row[j]
				c := (exag*p - w*invZ) * w
				g0 += c * d0
				g1 += c * d1
				if wantKL && p > 0 {
					kl += p * math.Log(p/(w*invZ))
				}
			}
			g[2*i] = 4 * g0
			g[2*i+1] = 4 * g1
		}
		e.klpart[b] = kl
	})
	if !wantKL {
		return math.NaN()
	}
	return sumOrdered(e.klpart)
}
