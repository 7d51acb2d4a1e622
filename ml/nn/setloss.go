package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SetLoss returns the completion form of the distance loss (taglens's extension
// of Eq. 6, `--stage2-loss completion`) averaged over the groups of a batch. Its
// rows are CEs, one per example (not pairs), in groups of A + C consecutive
// rows: A anchors, the other terms of a training document in the context δ ∖
// {p}, then C candidates in the same context, the first being the held-out term
// p and the rest terms outside δ. Each candidate scores by the Euclidean
// distance to its nearest anchor, as Eq. 9 ranks a term by its nearest term of
// the document:
//
//	d_k = min_{a < A} √(‖ce_k − ce_a‖² + ε²),   s_k = −d_k / T,
//	L = 1/(N/(A+C)) Σ_groups [ −s_0 + log Σ_k exp(s_k) ],
//
// an InfoNCE loss (Oord, Li & Vinyals 2018) over every candidate of the group:
// the completion protocol's situation, trained directly; ε = SetEps keeps the
// gradient finite where two CEs meet. Unlike GroupLoss's set form, which pairs
// every candidate with every anchor, each example is computed once. If g is
// not nil it receives ∂L/∂ce (overwritten):
//
//	∂L/∂ce_k = c_k (ce_k − ce_a*),   ∂L/∂ce_a* += −c_k (ce_k − ce_a*),
//	c_k = 1/(N/(A+C)) · (p_k − [k = 0]) · (−1/(T d_k)),
//
// a* candidate k's nearest anchor (the first on ties) and p the softmax of s
// over the group; an anchor that is nobody's nearest gets 0. It panics when N
// is not a multiple of A + C or A or C is below 1.
func SetLoss(ce *mat.Dense, A, C int, T float64, g *mat.Dense) float64 {
	N, _ := ce.Dims()
	return setLoss(ce, A, C, T, g, N, 1)
}

// SetEps is SetLoss's ε: √(E² + ε²) is the distance of two CEs E apart.
const SetEps = 1e-9

// setLoss is SetLoss normalised by the groups of totalN rows, with the
// gradient scaled by scale.
func setLoss(ce *mat.Dense, A, C int, T float64, g *mat.Dense, totalN int, scale float64) float64 {
	N, dim := ce.Dims()
	G := A + C
	if A < 1 || C < 1 || N%G != 0 || totalN%G != 0 {
		panic(fmt.Sprintf("nn: %d rows (of %d) are not groups of %d anchors and %d candidates", N, totalN, A, C))
	}
	if g != nil {
		if r, c := g.Dims(); r != N || c != dim {
			panic(fmt.Sprintf("nn: gradient is %d×%d, want %d×%d", r, c, N, dim))
		}
	}
	if T == 0 {
		T = 1
	}
	inv := float64(G) / float64(totalN)
	s := make([]float64, C)
	d := make([]float64, C)
	near := make([]int, C)
	var loss float64
	for g0 := 0; g0 < N; g0 += G {
		for k := range C {
			y := ce.RawRowView(g0 + A + k)
			for a := range A {
				x := ce.RawRowView(g0 + a)
				var e2 float64
				for i, v := range x {
					t := y[i] - v
					e2 += t * t
				}
				if a == 0 || e2 < d[k] {
					d[k], near[k] = e2, a
				}
			}
			d[k] = math.Sqrt(d[k] + SetEps*SetEps)
			s[k] = -d[k] / T
		}
		l, mx, z := softmaxFirst(s)
		loss += l
		if g == nil {
			continue
		}
		for r := range G {
			clear(g.RawRowView(g0 + r))
		}
		for k := range C {
			p := math.Exp(s[k]-mx) / z
			if k == 0 {
				p--
			}
			c := scale * inv * p * (-1 / (T * d[k]))
			y, x := ce.RawRowView(g0+A+k), ce.RawRowView(g0+near[k])
			gy, gx := g.RawRowView(g0+A+k), g.RawRowView(g0+near[k])
			for i, v := range y {
				q := c * (v - x[i])
				gy[i] = q
				gx[i] -= q
			}
		}
	}
	return loss * inv
}

// softmaxFirst returns the softmax cross-entropy of the first of the scores s,
// −s_0 + log Σ_k exp(s_k), computed as mx + log z − s_0 with mx = max_k s_k and
// z = Σ_k exp(s_k − mx), and mx and z, from which each probability
// p_k = exp(s_k − mx)/z follows (GroupLoss and SetLoss).
func softmaxFirst(s []float64) (loss, mx, z float64) {
	mx = math.Inf(-1)
	for _, v := range s {
		mx = max(mx, v)
	}
	for _, v := range s {
		z += math.Exp(v - mx)
	}
	return mx + math.Log(z) - s[0], mx, z
}

// SetGrad computes the stage-2 loss of the completion form on a batch of N
// examples in groups of A anchors and C candidates (SetLoss),
//
//	L = L_P(X, Y) + α L_set(X),
//
// L_P being PredictionLoss over the N examples (their own Eq. 5 targets: BoW(δ)
// for the anchors and the held-out term, its complement for the terms outside
// δ), and writes ∂L/∂θ into grad. It returns L_P and L_set. The batch's groups
// must split evenly among the trainer's parts (N a multiple of
// DefaultParts·(A+C)). With a column sample s the prediction loss is the
// sampled Eq. 5 on s's output units.
func (t *Trainer) SetGrad(x *mat.Dense, targets []Target, A, C int, T, alpha float64, s *ColumnSample, grad []float64) (lp, ls float64) {
	N, _ := x.Dims()
	if len(targets) != N {
		panic(fmt.Sprintf("nn: %d targets for %d rows", len(targets), N))
	}
	if G := A + C; N%(len(t.parts)*G) != 0 {
		panic(fmt.Sprintf("nn: SetGrad with %d rows: not %d parts of whole groups of %d", N, len(t.parts), G))
	}
	m := t.Net
	H := m.Layers()
	if H < 2 {
		panic("nn: SetGrad needs at least one hidden layer")
	}
	dimCE := m.Sizes[H-1]
	t.d1[0] = grow(t.d1[0], N*m.Sizes[1])
	t.run(N, s, func(p *trainPart, lo, hi int) {
		n := hi - lo
		G := m.Sizes[H]
		if s != nil {
			G = len(s.Cols)
		}
		p.gOut1 = grow(p.gOut1, n*G)
		p.gCE1 = grow(p.gCE1, n*dimCE)
		gOut, gCE := mat.NewDense(n, G, p.gOut1), mat.NewDense(n, dimCE, p.gCE1)
		delta := s == nil
		if s == nil {
			p.lp = forwardLoss(m, p.ws1, rowsOf(x, lo, hi), targets[lo:hi], gOut, N)
		} else {
			forwardOut(m, p.ws1, rowsOf(x, lo, hi), s, &t.cw)
			p.lp, _ = lossOut(p.ws1.Out(H), s, targets[lo:hi], gOut, N, &p.st)
		}
		p.ls = setLoss(p.ws1.Out(H-1), A, C, T, gCE, N, alpha)
		grads := make([]*mat.Dense, H+1)
		grads[H], grads[H-1] = gOut, gCE
		m.backward(p.ws1, grads, p.grad, true, delta, t.d1Rows(0, lo, hi))
	})
	var cols []int
	if s != nil {
		cols = s.Cols
	}
	t.finish(grad, cols, x)
	for _, p := range t.parts {
		lp += p.lp
		ls += p.ls
	}
	return lp, ls
}
