package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSetLossFD checks SetLoss's gradient by finite differences for several
// group shapes and temperatures, and a hand value: anchors at 0 and 3, the
// held-out term at 2 (nearest anchor 3, at distance 1) and one outsider at 0
// (distance ε) give s = (−1, −ε) and L = 1 + log(e^{−1} + e^{−ε}). The score
// is the distance, not its square: a held-out term at 2 from its anchor costs
// twice the margin of one at 1, not four times.
func TestSetLossFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	const dim = 3
	for _, c := range []struct {
		A, C, groups int
		T            float64
	}{{1, 2, 2, 1}, {2, 3, 2, 0.5}, {3, 4, 1, 2}, {1, 1, 3, 1}} {
		N := c.groups * (c.A + c.C)
		ce := randDense(N, dim, 1, rng)
		g := mat.NewDense(N, dim, nil)
		SetLoss(ce, c.A, c.C, c.T, g)
		f := func() float64 { return SetLoss(ce, c.A, c.C, c.T, nil) }
		checkGrad(t, "set loss", g.RawMatrix().Data, numGrad(ce.RawMatrix().Data, f), 1e-6)
	}
	ce := mat.NewDense(4, 1, []float64{0, 3, 2, 0})
	if got, want := SetLoss(ce, 2, 2, 1, nil), math.Log(math.Exp(-1)+math.Exp(-SetEps))+1; math.Abs(got-want) > 1e-12 {
		t.Errorf("hand value: got %v, want %v", got, want)
	}
	ce = mat.NewDense(3, 1, []float64{0, 2, 0})
	if got, want := SetLoss(ce, 1, 2, 0.5, nil), math.Log(math.Exp(-4)+math.Exp(-2*SetEps))+4; math.Abs(got-want) > 1e-12 {
		t.Errorf("distance 2 at T = 0.5: got %v, want %v", got, want)
	}
	// A group whose held-out term sits on an anchor and whose outsider is far
	// costs almost nothing; swapped, it costs about the outsider's margin.
	ce = mat.NewDense(3, 1, []float64{0, 0, 30})
	if got := SetLoss(ce, 1, 2, 1, nil); got > 1e-10 {
		t.Errorf("positive on its anchor: loss %v, want ≈ 0", got)
	}
	ce = mat.NewDense(3, 1, []float64{0, 30, 0})
	if got := SetLoss(ce, 1, 2, 1, nil); math.Abs(got-30) > 1e-9 {
		t.Errorf("outsider on the anchor: loss %v, want ≈ 30", got)
	}
}

// TestSetGradFD checks the Trainer's completion-form stage-2 gradient (Eq. 5
// on every example plus α·SetLoss at the CE layer), exact and sampled, against
// finite differences of the loss it returns, with 1 and 2 parts, and that a
// repeated call gives identical bytes.
func TestSetGradFD(t *testing.T) {
	sizes := []int{5, 4, 3, 8}
	rng := rand.New(rand.NewPCG(93, 94))
	const A, C, groups = 2, 3, 2
	const N = groups * (A + C)
	x := randDense(N, sizes[0], 1, rng)
	tg := randTargets(rng, N, sizes[3])
	const alpha = 2.5
	var s ColumnSample
	s.Draw(tg, sizes[3], 3, rng)
	for _, parts := range []int{1, 2} {
		m := NewMLP(sizes, rand.New(rand.NewPCG(8, 8)))
		tr := NewTrainerParts(m, N, parts)
		for _, sampled := range []bool{false, true} {
			f := func(g []float64) float64 {
				var lp, ls float64
				if sampled {
					lp, ls = tr.SetGrad(x, tg, A, C, 0.7, alpha, &s, g)
				} else {
					lp, ls = tr.SetGrad(x, tg, A, C, 0.7, alpha, nil, g)
				}
				return lp + alpha*ls
			}
			got := make([]float64, len(m.Params))
			f(got)
			again := make([]float64, len(m.Params))
			f(again)
			for i := range got {
				if got[i] != again[i] {
					t.Fatalf("parts=%d sampled=%v: repeated call differs at %d", parts, sampled, i)
				}
			}
			scratch := make([]float64, len(m.Params))
			want := numGrad(m.Params, func() float64 { return f(scratch) })
			checkGrad(t, "completion form", got, want, 1e-6)
		}
	}
}
