package nn

import (
	"math/rand/v2"
	"testing"
)

// TestTrainerFD checks the Trainer's stage-1 and stage-2 (Eq. 7) parameter gradients,
// exact and sampled, against finite differences of the losses it returns, with
// 1, 2 and 3 parts; and that a call repeated gives identical bytes.
func TestTrainerFD(t *testing.T) {
	sizes := []int{5, 4, 3, 8}
	rng := rand.New(rand.NewPCG(61, 62))
	const N = 5
	x1 := randDense(N, sizes[0], 1, rng)
	x2 := randDense(N, sizes[0], 1, rng)
	t1 := randTargets(rng, N, sizes[3])
	t2 := randTargets(rng, N, sizes[3])
	types := []PairType{I1, I2, I3, I3, I1}
	d := []float64{0.3, 0.9, 0.5, 0.1, 0.7}
	const alpha = 3.0
	var s ColumnSample
	s.Draw(append(append([]Target(nil), t1...), t2...), sizes[3], 3, rng)
	for _, parts := range []int{1, 2, 3} {
		m := NewMLP(sizes, rand.New(rand.NewPCG(7, 7)))
		tr := NewTrainerParts(m, N, parts)
		cases := []struct {
			name string
			f    func(grad []float64) float64
		}{
			{"Eq. 5", func(g []float64) float64 { return tr.PredictionGrad(x1, t1, g) }},
			{"sampled Eq. 5", func(g []float64) float64 { return tr.SampledPredictionGrad(x1, t1, &s, g) }},
			{"Eq. 7", func(g []float64) float64 {
				lp, ls := tr.SiameseGrad(x1, x2, t1, t2, types, d, SiameseConfig{}, alpha, g)
				return lp + alpha*ls
			}},
			{"sampled Eq. 7", func(g []float64) float64 {
				lp, ls := tr.SampledSiameseGrad(x1, x2, t1, t2, types, d, SiameseConfig{Beta: 1}, alpha, &s, g)
				return lp + alpha*ls
			}},
		}
		for _, c := range cases {
			got := make([]float64, len(m.Params))
			c.f(got)
			again := make([]float64, len(m.Params))
			c.f(again)
			for i := range got {
				if got[i] != again[i] {
					t.Fatalf("%s parts=%d: repeated call differs at %d", c.name, parts, i)
				}
			}
			scratch := make([]float64, len(m.Params))
			want := numGrad(m.Params, func() float64 { return c.f(scratch) })
			checkGrad(t, c.name, got, want, 1e-6)
		}
	}
}
