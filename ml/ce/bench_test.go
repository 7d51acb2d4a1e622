package ce

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/cputime"
	"github.com/taglens/taglens/ml/nn"
)

// benchTrainer builds a trainer over a synthetic training set of the given input
// widths and vocabulary (2000 documents of 5 random terms, random inputs), with
// the training step Train would use for that vocabulary and cfg.
func benchTrainer(dt, dc, v int, cfg Config) *trainer {
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
		var d []int
		for len(d) < 5 {
			if t := rng.IntN(v); !slices.Contains(d, t) {
				d = append(d, t)
			}
		}
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
	if len(cfg.Hidden) == 0 {
		cfg.Hidden = []int{100, 100, 10} // the paper's network at every benchmarked size
	}
	cfg = cfg.withDefaults().forVocabulary(v)
	sizes := append(append([]int{dt + dc}, cfg.Hidden...), v)
	t := &trainer{ctx: context.Background(), cfg: cfg, start: time.Now(), rng: rng, set: set,
		m: &Model{sizes: sizes}, net: nn.NewMLP(sizes, rng)}
	t.step = newStepper(set, t.net, cfg.BatchSize, cfg.outputSample(v), 1)
	return t
}

var benchDims = []struct {
	name   string
	dt, dc int
	v      int
	sample int // Config.OutputSample
}{
	// The paper's MagTag5K subnetwork: input 155 (136 term + 19 context) → 100 →
	// 100 → 10 → 136; exact Eq. 5 (|Γ| ≤ SampleAbove).
	{"magtag_in155_v136", 136, 19, 136, 0},
	// 2000-dim input and vocabulary: Train's automatic choice is the exact
	// Eq. 5 (|Γ| ≤ SampleAbove); the sampled loss (M = 512) for comparison.
	{"in2000_v2000", 1980, 20, 2000, 0},
	{"in2000_v2000_sampled", 1980, 20, 2000, 512},
	// Large vocabularies (issue 7; lastfm-hetrec has 9,743 terms): 200
	// randomized-PCA term components and 20 topics; the automatic choice is
	// the sampled Eq. 5 with M = 512 above SampleAbove, the exact loss forced
	// for comparison (the figures behind SampleAbove).
	{"in220_v9743", 200, 20, 9743, 0},
	{"in220_v9743_exact", 200, 20, 9743, -1},
	{"in220_v4000", 200, 20, 4000, 0},
	{"in220_v4000_exact", 200, 20, 4000, -1},
}

// BenchmarkStage1 measures Train's stage-1 step (trainer.step1: batch assembly,
// Eq. 5 forward/backward on nn.Trainer's two parts, SGD with momentum), batch 100.
func BenchmarkStage1(b *testing.B) {
	for _, d := range benchDims {
		b.Run(d.name, func(b *testing.B) {
			t := benchTrainer(d.dt, d.dc, d.v, Config{OutputSample: d.sample})
			ex := t.set.epochExamples(t.rng, 0, nil)
			bs := t.cfg.BatchSize
			opt := &nn.SGD{LearningRate: 0.01, Momentum: 0.9}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Start()
			for i := 0; i < b.N; i++ {
				off := (i * bs) % (len(ex) - bs)
				if _, err := t.step1(ex[off:off+bs], opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*bs)/b.Elapsed().Seconds(), "examples/s")
			// Per CPU-second: what the step achieves when the shared machine gives
			// it less than its two cores.
			cpu.Rate(b, float64(b.N*bs), "examples-per-cpu-s")
		})
	}
}

// BenchmarkStage2 measures Train's stage-2 step (trainer.step2: pair sampling,
// batch assembly, Eq. 7 on both members, SGD with momentum), 100 pairs.
func BenchmarkStage2(b *testing.B) {
	for _, d := range benchDims {
		b.Run(d.name, func(b *testing.B) {
			t := benchTrainer(d.dt, d.dc, d.v, Config{OutputSample: d.sample})
			cfg := t.cfg
			sc := nn.SiameseConfig{Beta: cfg.Beta, Rho: cfg.Rho}
			ps := make([]pair, cfg.BatchSize)
			opt := &nn.SGD{LearningRate: 0.01, Momentum: 0.9}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Start()
			for i := 0; i < b.N; i++ {
				t.set.samplePairs(t.rng, cfg.WithinDoc, cfg.WithinDocI3, ps)
				if _, err := t.step2(ps, 0.1, 1, sc, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(ps))/b.Elapsed().Seconds(), "pairs/s")
			cpu.Rate(b, float64(b.N*len(ps)), "pairs-per-cpu-s")
		})
	}
}

// BenchmarkEmbedVocab measures CE(τ|δ) for every vocabulary term in one context
// (the work of one validation or priming document), reporting terms/s.
func BenchmarkEmbedVocab(b *testing.B) {
	for _, d := range []struct {
		name   string
		dt, dc int
		v      int
	}{{"magtag_in155_v136", 136, 19, 136}, {"in220_v9743", 200, 20, 9743}} {
		b.Run(d.name, func(b *testing.B) {
			t := benchTrainer(d.dt, d.dc, d.v, Config{})
			e := newEmbedder(t.m.sizes, t.net.Params, t.set.termX, d.dc, 0)
			dst := make([]float64, d.v*e.ceDim())
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Start()
			for i := 0; i < b.N; i++ {
				e.embedVocab(dst, t.set.ctxX[i%len(t.set.ctxX)])
			}
			b.ReportMetric(float64(b.N*d.v)/b.Elapsed().Seconds(), "terms/s")
			cpu.Rate(b, float64(b.N*d.v), "terms-per-cpu-s")
		})
	}
}
