package ce

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/nn"
)

// benchTrainer builds a trainer over a synthetic training set of the given input
// widths and vocabulary (documents of 5 random terms), with random inputs.
func benchTrainer(dt, dc, v int, hidden []int) *trainer {
	rng := rand.New(rand.NewPCG(1, 2))
	set := &trainSet{v: v}
	for i := 0; i < v; i++ {
		r := make([]float64, dt)
		for j := range r {
			r[j] = 2*rng.Float64() - 1
		}
		set.termX = append(set.termX, r)
	}
	for i := 0; i < 2000; i++ {
		d := rng.Perm(v)[:5]
		slices.Sort(d)
		set.docs = append(set.docs, d)
		c := make([]float64, dc)
		raw := make([]float64, dc)
		var s float64
		for j := range c {
			c[j] = 2*rng.Float64() - 1
			raw[j] = rng.Float64() + 0.01
			s += raw[j]
		}
		for j := range raw {
			raw[j] /= s
		}
		set.ctxX = append(set.ctxX, c)
		set.ctxRaw = append(set.ctxRaw, raw)
		set.multi = append(set.multi, i)
	}
	sizes := append(append([]int{dt + dc}, hidden...), v)
	cfg := Config{Hidden: hidden}.withDefaults()
	t := &trainer{ctx: context.Background(), cfg: cfg, start: time.Now(), rng: rng, set: set,
		m: &Model{sizes: sizes}, net: nn.NewMLP(sizes, rng)}
	for w := range t.ws {
		t.ws[w] = nn.NewWorkspace(sizes, 2*cfg.BatchSize)
		t.grads[w] = make([]float64, nn.NumParams(sizes))
		t.xb[w] = mat.NewDense(2*cfg.BatchSize, sizes[0], nil)
		t.gOut[w] = mat.NewDense(2*cfg.BatchSize, v, nil)
		t.gCE[w] = mat.NewDense(2*cfg.BatchSize, hidden[len(hidden)-1], nil)
	}
	return t
}

var benchDims = []struct {
	name   string
	dt, dc int
	v      int
}{
	// The paper's MagTag5K subnetwork: input 155 (136 term + 19 context) → 100 →
	// 100 → 10 → 136.
	{"magtag_in155_v136", 136, 19, 136},
	{"in2000_v2000", 1980, 20, 2000},
}

// BenchmarkStage1 measures one stage-1 SGD step (Eq. 5, batch 100) on both workers.
func BenchmarkStage1(b *testing.B) {
	for _, d := range benchDims {
		b.Run(d.name, func(b *testing.B) {
			t := benchTrainer(d.dt, d.dc, d.v, []int{100, 100, 10})
			ex := t.set.epochExamples(t.rng, 0, nil)
			opt := &nn.SGD{LearningRate: 0.01}
			var targets [numWorkers][]nn.Target
			for w := range targets {
				targets[w] = make([]nn.Target, 100)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				off := (i * 100) % (len(ex) - 100)
				batch := ex[off : off+100]
				var weight [numWorkers]float64
				parallelBatch(len(batch), func(w, lo, hi int) {
					clear(t.grads[w])
					t.stage1Loss(w, batch[lo:hi], targets[w][:hi-lo], t.grads[w])
					weight[w] = float64(hi-lo) / float64(len(batch))
				})
				opt.Step(t.net.Params, t.reduceGrads(weight))
			}
			b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}

// BenchmarkStage2 measures one stage-2 SGD step (Eq. 7, 100 pairs = 200 rows).
func BenchmarkStage2(b *testing.B) {
	for _, d := range benchDims {
		b.Run(d.name, func(b *testing.B) {
			t := benchTrainer(d.dt, d.dc, d.v, []int{100, 100, 10})
			cfg := t.cfg
			sc := nn.SiameseConfig{Beta: cfg.Beta, Rho: cfg.Rho}
			var sb [numWorkers]siameseBatch
			for w := range sb {
				sb[w] = siameseBatch{targets: make([]nn.Target, 200), types: make([]nn.PairType, 100), d: make([]float64, 100)}
			}
			ps := make([]pair, 100)
			opt := &nn.SGD{LearningRate: 0.01}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t.set.samplePairs(t.rng, 0.5, 0.5, ps)
				var weight [numWorkers]float64
				parallelBatch(len(ps), func(w, lo, hi int) {
					clear(t.grads[w])
					sbw := &sb[w]
					sbw.targets, sbw.types, sbw.d = sbw.targets[:cap(sbw.targets)], sbw.types[:cap(sbw.types)], sbw.d[:cap(sbw.d)]
					t.fillSiamese(w, ps[lo:hi], 1, sbw)
					rows := 2 * (hi - lo)
					gOut := t.gOut[w].Slice(0, rows, 0, d.v).(*mat.Dense)
					gCE := t.gCE[w].Slice(0, rows, 0, 10).(*mat.Dense)
					siameseLoss(t.net, t.ws[w], sbw, 0.1, sc, gOut, gCE, t.grads[w])
					weight[w] = float64(hi-lo) / float64(len(ps))
				})
				opt.Step(t.net.Params, t.reduceGrads(weight))
			}
			b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

var _ = fmt.Sprint
