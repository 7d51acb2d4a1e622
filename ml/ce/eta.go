package ce

import (
	"math/rand/v2"
	"time"

	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/nn"
)

// The time estimate of a training (Progress.ETA) adds up the work left —
// the epochs of each stage that early stopping is expected to run, each a
// known number of examples or pairs and one validation pass, the pilots, the
// width fit — at rates measured in this training: a stage-1 example, a stage-2
// pair and a validation pass, each from the last time this training ran one,
// and before the first epoch from a probe (probe) that times a few
// mini-batches of a network of the training's sizes. While the term features
// and LDA are fitted, their own progress says how long they still need
// (prepState.left). Wall-clock time decides only what the estimate says, never what
// is learned: the probe draws from streams of its own and touches nothing of
// the model.

// probeBatches is the number of timed mini-batches of each stage in probe.
const probeBatches = 6

// clock holds the rates of the estimate.
type clock struct {
	ex1, pair, valid time.Duration // a stage-1 example, a stage-2 pair, a validation pass
	validRows        time.Duration // the probe's embedding of a validation document's terms
	validPasses      int           // validation passes measured
	stage0           time.Duration // the probe's estimate of stage 0
}

// expectedEpochs is the number of epochs a stage of at most maxEpochs epochs is
// expected to run before it has run one: early stopping ends it patience
// evaluations after its best, and the estimate assumes the first is the best
// (epochsLeft's rule before its first evaluation).
func (t *trainer) expectedEpochs(maxEpochs int) int {
	return min(maxEpochs, 1+t.cfg.Patience*t.cfg.EvalEvery)
}

// epochWork returns the examples (pairs) of an epoch.
func (t *trainer) epochWork() int {
	if t.cfg.EpochExamples > 0 {
		return t.cfg.EpochExamples
	}
	return DefaultEpochExamples
}

// validTime is the time of a validation pass: measured, or from the probe.
func (t *trainer) validTime() time.Duration {
	if t.clk.validPasses > 0 {
		return t.clk.valid
	}
	return time.Duration(len(t.valid)) * t.clk.validRows
}

// timeValidation records the duration d of a validation pass (a running mean).
func (t *trainer) timeValidation(d time.Duration) {
	n := time.Duration(t.clk.validPasses)
	t.clk.valid = (t.clk.valid*n + d) / (n + 1)
	t.clk.validPasses++
}

// epoch1Time and epoch2Time are the times of a stage-1 epoch and of a stage-2
// epoch of pairs pairs, validation included.
func (t *trainer) epoch1Time() time.Duration {
	return time.Duration(t.epochWork())*t.clk.ex1 + t.validTime()
}

func (t *trainer) epoch2Time(pairs int) time.Duration {
	return time.Duration(pairs)*t.pairTime() + t.validTime()
}

// pairTime is the time of a stage-2 pair: measured (by stage 2 or the
// probe), or else, up to features.DefaultExactMaxTerms terms (no probe)
// before stage 2's first pilot, two stage-1 examples: a pair runs the
// forward and backward passes of the two tied copies (§4.3.3) on the
// network stage 1 trains (edict-glosses: about 2 s for stage 1's 120,000
// examples and 4 s for stage 2's 120,000 pairs).
func (t *trainer) pairTime() time.Duration {
	if t.clk.pair > 0 {
		return t.clk.pair
	}
	return 2 * t.clk.ex1
}

// finalTime is the time of the width fit (width.go) after stage 2: both
// networks embed the validation documents and rank them for every β, about
// two validation passes.
func (t *trainer) finalTime() time.Duration { return 2 * t.validTime() }

// etaFrom estimates the time left from the start of stage 1 (before stage 0
// with stage0 too): stage 1's expected epochs, the pilots and stage 2.
func (t *trainer) etaFrom(withStage0 bool) time.Duration {
	d := time.Duration(t.expectedEpochs(t.cfg.MaxEpochs1))*t.epoch1Time() + t.etaAfterStage1(t.pilotCount())
	if withStage0 {
		d += t.clk.stage0
	}
	return d
}

// pilotCount is the number of pilots stage 2 is expected to run before any
// has run (stage1 and stage2 count them with it).
func (t *trainer) pilotCount() int {
	cfg := t.cfg
	alphas, lambdas := cfg.stage2Grid()
	n := len(alphas) * len(lambdas)
	if n > 1 && cfg.Stage2Start == Stage2Choose {
		n++
	}
	if n == 1 {
		return 0
	}
	return n
}

// etaAfterStage1 estimates the time of the pilots left, stage 2 and the width
// fit: a pilot is a quarter epoch of pairs, and stage 2 is expected to run
// expectedEpochs epochs.
func (t *trainer) etaAfterStage1(pilotsLeft int) time.Duration {
	pairs := t.epochWork()
	pilots := time.Duration(pilotsLeft) * t.epoch2Time(max(pairs/4, t.cfg.BatchSize))
	return pilots + time.Duration(t.expectedEpochs(t.cfg.MaxEpochs2))*t.epoch2Time(pairs) + t.finalTime()
}

// probe sets the clock's rates before the first epoch: it times probeBatches
// stage-1 and stage-2 mini-batches and the embedding of a vocabulary (or of
// the validation's sample of it) in one context, on a network of the
// training's sizes with stand-in inputs (one row for every term and one for
// every context: a step's cost does not depend on the values) and the
// training documents' term lists, after one untimed batch of each. It draws
// from streams of its own. The term features' width is the randomized PCA's
// (the vocabularies where the estimate matters before the first epoch are
// those above features.DefaultExactMaxTerms, whose fits take minutes).
func (t *trainer) probe(docs [][]int, v, topics int) {
	cfg := t.cfg
	if v <= features.DefaultExactMaxTerms {
		return // the first epoch's rates come within seconds
	}
	dt := cfg.TermDim
	if dt <= 0 {
		dt = features.DefaultRandomizedDim
	}
	dt = min(dt, v)
	dc := topics
	if dc <= 0 {
		dc = selectGrid[len(selectGrid)-1]
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70726f6265))
	row := func(n int) []float64 {
		r := make([]float64, n)
		for i := range r {
			r[i] = 2*rng.Float64() - 1
		}
		return r
	}
	n := min(len(docs), 4*cfg.BatchSize*(probeBatches+1))
	set := &trainSet{v: v, docs: docs[:n], termX: make([][]float64, v), ctxX: make([][]float64, n), ctxRaw: make([][]float64, n)}
	tr, cr, raw := row(dt), row(dc), make([]float64, dc)
	for i := range raw {
		raw[i] = 1 / float64(dc)
	}
	for i := range set.termX {
		set.termX[i] = tr
	}
	for i := range n {
		set.ctxX[i], set.ctxRaw[i] = cr, raw
		if len(docs[i]) >= 2 {
			set.multi = append(set.multi, i)
		}
	}
	sizes := append(append([]int{dt + dc}, cfg.Hidden...), v)
	net := nn.NewMLP(sizes, rng)
	st := newStepper(set, net, cfg.BatchSize, cfg.outputSample(v), cfg.Seed)
	opt := cfg.newSGD(probeBatches + 1)
	b := cfg.BatchSize
	ex := set.epochExamples(rng, b*(probeBatches+1), nil)
	var start time.Time
	for i := 0; i*b < len(ex) && i <= probeBatches; i++ {
		if i == 1 {
			start = time.Now()
		}
		st.fill1(ex[i*b : min((i+1)*b, len(ex))])
		st.grad1()
		opt.StepWith(st.tr, net.Params, st.grad)
	}
	if len(ex) > b {
		t.clk.ex1 = time.Since(start) / time.Duration(len(ex)-b)
	}
	ps := make([]pair, b)
	sc := nn.SiameseConfig{Beta: cfg.Beta, Rho: cfg.Rho}
	for i := 0; i <= probeBatches; i++ {
		if i == 1 {
			start = time.Now()
		}
		set.samplePairs(rng, cfg.WithinDoc, cfg.WithinDocI3, ps)
		st.fill2(ps, 1)
		st.grad2(0.1, sc)
		opt.StepWith(st.tr, net.Params, st.grad)
	}
	t.clk.pair = time.Since(start) / time.Duration(probeBatches*b)
	// A validation pass embeds every validation document's sample of terms
	// in its context, then ranks them.
	terms := v
	if t.validTerms != nil {
		terms = len(t.validTerms)
	}
	e := newEmbedder(sizes, net.Params, set.termX[:terms], dc, 0)
	dst := make([]float64, terms*e.ceDim())
	e.embedVocab(dst, cr) // untimed: fills the embedder's work pool
	start = time.Now()
	const docsTimed = 2
	for range docsTimed {
		e.embedVocab(dst, cr)
	}
	t.clk.validRows = time.Since(start) / docsTimed
	// Stage 0 trains the auto-encoders of the layers on PretrainExamples
	// inputs for up to PretrainIterations L-BFGS iterations: about that many
	// forward and backward passes of the layers below the output.
	if cfg.PretrainIterations >= 0 {
		t.clk.stage0 = time.Duration(cfg.PretrainExamples*max(cfg.PretrainIterations, 1)) * t.clk.pair / 4
	}
}
