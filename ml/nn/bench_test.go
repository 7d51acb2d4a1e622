package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/taglens/taglens/internal/cputime"
)

var benchDims = []struct {
	name  string
	sizes []int
}{
	{"magtag", []int{155, 100, 100, 10, 136}},
	{"dim2000", []int{2000, 100, 100, 10, 2000}},
}

func benchTargets(rng *rand.Rand, K, G int) []Target {
	ts := make([]Target, K)
	for k := range ts {
		ts[k] = Target{Idx: rng.Perm(G)[:5], Complement: k%2 == 1}
	}
	return ts
}

// benchSteps times b.N training steps of m on batches of batch rows: grad
// computes a batch's gradient, SGD applies it. It reports the rows per second
// and per CPU-second (what one core does when the machine is shared: the wall
// figure counts the time other processes took).
func benchSteps(b *testing.B, m *MLP, batch int, unit string, grad func(*Trainer, []float64)) {
	tr := NewTrainer(m, batch)
	opt := &SGD{LearningRate: 1e-4}
	g := make([]float64, len(m.Params))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Start()
	for i := 0; i < b.N; i++ {
		grad(tr, g)
		opt.Step(m.Params, g)
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), unit+"/s")
	cpu.Rate(b, float64(b.N*batch), unit+"-per-cpu")
}

// BenchmarkTrainStep times one stage-1 step: forward, Eq. 5, backward, SGD update,
// batch 100.
func BenchmarkTrainStep(b *testing.B) {
	for _, d := range benchDims {
		b.Run(d.name, func(b *testing.B) {
			const batch = 100
			rng := rand.New(rand.NewPCG(1, 1))
			m := NewMLP(d.sizes, rng)
			x := randDense(batch, d.sizes[0], 1, rng)
			ts := benchTargets(rng, batch, d.sizes[len(d.sizes)-1])
			benchSteps(b, m, batch, "examples", func(tr *Trainer, grad []float64) {
				tr.PredictionGrad(x, ts, grad)
			})
		})
	}
}

// BenchmarkSiameseStep times one stage-2 step on 100 pairs: both members forward,
// Eq. 5 on both, Eq. 6, both backward, SGD update.
func BenchmarkSiameseStep(b *testing.B) {
	for _, d := range benchDims {
		b.Run(d.name, func(b *testing.B) {
			const batch = 100
			rng := rand.New(rand.NewPCG(1, 1))
			m := NewMLP(d.sizes, rng)
			G := d.sizes[len(d.sizes)-1]
			x1 := randDense(batch, d.sizes[0], 1, rng)
			x2 := randDense(batch, d.sizes[0], 1, rng)
			t1, t2 := benchTargets(rng, batch, G), benchTargets(rng, batch, G)
			types := make([]PairType, batch)
			sim := make([]float64, batch)
			for n := range types {
				types[n] = []PairType{I1, I2, I3, I3}[n%4]
				sim[n] = rng.Float64()
			}
			benchSteps(b, m, batch, "pairs", func(tr *Trainer, grad []float64) {
				tr.SiameseGrad(x1, x2, t1, t2, types, sim, SiameseConfig{}, 1000, grad)
			})
		})
	}
}

// BenchmarkSampledTrainStep times one stage-1 step of a vocabulary of 7,800
// terms (lastfm-hetrec's size) with the sampled Eq. 5 of the defaults above
// 3,000 terms (M = 512): a column sample, forward, loss, backward, SGD update,
// batch 100.
func BenchmarkSampledTrainStep(b *testing.B) {
	const batch, G, M = 100, 7800, 512
	rng := rand.New(rand.NewPCG(1, 1))
	m := NewMLP([]int{150, 100, 100, 50, G}, rng)
	x := randDense(batch, 150, 1, rng)
	ts := benchTargets(rng, batch, G)
	var s ColumnSample
	benchSteps(b, m, batch, "examples", func(tr *Trainer, grad []float64) {
		s.Draw(ts, G, M, rng)
		tr.SampledPredictionGrad(x, ts, &s, grad)
	})
}
