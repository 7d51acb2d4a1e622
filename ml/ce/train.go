package ce

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/nn"
)

// Progress is reported by Train after each phase step and validation.
type Progress struct {
	Stage          string // "features", "lda", "stage0", "stage1", "pilot", "stage2", "done"
	Epoch, Epochs  int    // epochs done in the stage and its maximum
	Loss           float64
	ValidP2CE      float64 // best validation P@2 of stage 1 so far
	ValidP2Siamese float64 // best validation P@2 of stage 2 so far
	// ValidMAP is the validation extended MAP (Eq. 9, 11) of this report's
	// evaluation (a stage-1 or stage-2 epoch, a pilot), 0 when it has none.
	ValidMAP float64
	Fraction float64 // estimated fraction of the whole training done, 0..1
	ETA      time.Duration
	Message  string
}

// ErrNaN is wrapped by the error Train returns when a loss becomes NaN or infinite.
var ErrNaN = errors.New("ce: training diverged (loss is not finite)")

// numWorkers is the number of goroutines of the validation evaluation
// (eval.Options.Workers). Training batches are split by nn.Trainer into
// nn.DefaultParts fixed parts whose gradients are reduced in part order, so
// results do not depend on scheduling.
const numWorkers = 2

// trainer holds the state of one Train call.
type trainer struct {
	ctx      context.Context
	cfg      Config
	start    time.Time
	progress func(Progress)
	rng      *rand.Rand

	set   *trainSet
	valid [][]int // validation documents (sorted in-vocabulary ids, ≥ 2 terms)
	// validTerms: above ValidTerms terms, the sample the validation ranks
	// among (vocabulary ids, increasing), which valid's ids index; else nil.
	validTerms             []int
	longDocs               int    // training documents left out for their length (leaveOutLong)
	minTermDocs, rareTerms int    // leaveOutRare's k and the terms it left out
	m                      *Model // under construction: vocab, terms, ctxProj, lda, sizes
	net                    *nn.MLP

	step             *stepper // batch assembly and gradients (nn.Trainer)
	bestCE, bestSiam float64
	ceVal, siamVal   validation // the figures of CE's and Siamese-CE's kept weights (keepCE)
	lastFrac         float64

	// For the time estimate (Progress.ETA, eta.go): its rates and the pilots
	// left.
	clk     clock
	nPilots int

	// first holds the weights of stage 1's first validation evaluation and
	// firstEpoch its epoch: the other start of stage 2 (Config.Stage2Start).
	first      []float64
	firstEpoch int
}

// epochsLeft estimates how many more epochs a stage runs after epoch, whose
// best evaluation so far was at bestEpoch: early stopping ends it patience
// evaluations (every evalEvery epochs) after its best unless a better one
// comes, and we assume none does, so a new best lengthens the estimate by a few
// epochs instead of the estimate swinging between the stage's maximum and zero.
func epochsLeft(epoch, bestEpoch, patience, evalEvery, maxEpochs int) int {
	return max(0, min(bestEpoch+patience*evalEvery, maxEpochs)-epoch)
}

// Train learns the CE and Siamese-CE models from the training documents of split
// (paper §4.3): term features (Eq. 2), LDA context (Eq. 3) with automatic |Φ|,
// examples (§4.3.1), stage 0 (sparse auto-encoders, A.1), stage 1 (Eq. 5) and
// stage 2 (Eq. 6-7), each stage with early stopping on the validation P@2 of the
// priming protocol (design.md, decision 8). Validation documents are split.Valid (or, when
// empty, Config.ValidDocs documents held out from split.Train).
//
// progress, if not nil, is called from the calling goroutine. Train stops with
// ctx.Err() when ctx is cancelled and with an error wrapping ErrNaN when a loss
// becomes non-finite.
func Train(ctx context.Context, c *corpus.Corpus, split corpus.Split, cfg Config, progress func(Progress)) (*Model, error) {
	if c == nil || len(c.Docs) == 0 {
		return nil, errors.New("ce: train: empty corpus")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("ce: %w", err)
	}
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("ce: train: %w", err)
	}
	t := &trainer{ctx: ctx, cfg: cfg, start: time.Now(), progress: progress}
	t.rng = rand.New(rand.NewPCG(t.cfg.Seed, 0x7a61676c656e73))
	m, err := t.run(c, split)
	if err != nil {
		return nil, fmt.Errorf("ce: train: %w", err)
	}
	return m, nil
}

func (t *trainer) elapsed() time.Duration { return time.Since(t.start) }

// within returns the training's context with a deadline d after the start of
// training when the user set a time limit (Config.MaxTime), else the context
// itself; the caller calls cancel.
func (t *trainer) within(d time.Duration) (context.Context, context.CancelFunc) {
	if t.cfg.MaxTime <= 0 {
		return t.ctx, func() {}
	}
	return context.WithDeadline(t.ctx, t.start.Add(d))
}

// overTime reports whether the explicit wall-clock limit's deadline for the
// current stage has passed (never without Config.MaxTime).
func (t *trainer) overTime(deadline time.Duration) bool {
	return t.cfg.MaxTime > 0 && t.elapsed() > deadline
}

func (t *trainer) report(p Progress) {
	if t.progress == nil {
		return
	}
	p.ValidP2CE, p.ValidP2Siamese = t.bestCE, t.bestSiam
	if p.Fraction < t.lastFrac {
		p.Fraction = t.lastFrac
	}
	t.lastFrac = p.Fraction
	if p.Fraction > 0.02 && p.Fraction < 1 {
		el := t.elapsed()
		if p.ETA <= 0 { // no estimate from the stage: extrapolate the fraction done
			p.ETA = time.Duration(float64(el) * (1 - p.Fraction) / p.Fraction)
		}
		if t.cfg.MaxTime > 0 {
			p.ETA = min(p.ETA, max(t.cfg.MaxTime-el, 0))
		}
	}
	p.ETA = p.ETA.Round(time.Second)
	t.progress(p)
}

func (t *trainer) run(c *corpus.Corpus, split corpus.Split) (*Model, error) {
	trainIdx, validIdx, err := t.holdOut(c, split)
	if err != nil {
		return nil, err
	}
	vocab, docs, err := t.encode(c, trainIdx, validIdx)
	if err != nil {
		return nil, err
	}
	if err := t.inputs(c, vocab, docs); err != nil {
		return nil, err
	}
	// Stage 0: greedy layer-wise sparse auto-encoders (A.1).
	if err := t.stage0(); err != nil {
		return nil, err
	}
	info := &t.m.info
	t.step = newStepper(t.set, t.net, t.cfg.BatchSize, info.OutputSample, t.cfg.Seed)
	// Stage 1: prediction learning (Eq. 5) → "CE".
	if err := t.stage1(); err != nil {
		return nil, err
	}
	t.m.params[VariantCE] = slices.Clone(t.net.Params)
	// Stage 2: Siamese distance learning (Eq. 6-7) → "Siamese-CE".
	if err := t.stage2(); err != nil {
		return nil, err
	}
	t.m.params[VariantSiamese] = slices.Clone(t.net.Params)
	// Term widths (width.go), then Siamese-CE is CE's network if that ranks better (keepCE).
	if err := t.fitWidths(); err != nil {
		return nil, err
	}
	t.keepCE()
	t.m.init()
	t.report(Progress{Stage: "done", Fraction: 1, Loss: math.NaN(),
		Message: info.ValidationNote()})
	return t.m, nil
}

// holdOut checks the split and returns the training and validation documents:
// the split's own validation documents, or, when it has none, ValidDocs
// training documents held out at random (§5.2 uses 300).
func (t *trainer) holdOut(c *corpus.Corpus, split corpus.Split) (trainIdx, validIdx []int, err error) {
	if len(split.Train) == 0 {
		return nil, nil, errors.New("no training documents in the split")
	}
	for _, list := range [][]int{split.Train, split.Valid} {
		for _, i := range list {
			if i < 0 || i >= len(c.Docs) {
				return nil, nil, fmt.Errorf("split refers to document %d of a corpus of %d", i, len(c.Docs))
			}
		}
	}
	trainIdx = slices.Clone(split.Train)
	validIdx = slices.Clone(split.Valid)
	if len(validIdx) > 0 {
		return trainIdx, validIdx, nil
	}
	n := min(t.cfg.ValidDocs, len(trainIdx)/5)
	perm := t.rng.Perm(len(trainIdx))
	hold := make(map[int]bool, n)
	for _, p := range perm[:n] {
		hold[trainIdx[p]] = true
	}
	var keep []int
	for _, i := range trainIdx {
		if hold[i] {
			validIdx = append(validIdx, i)
		} else {
			keep = append(keep, i)
		}
	}
	return keep, validIdx, nil
}

// encode builds the vocabulary of the training documents, fills in the
// defaults that depend on its size (Config.forVocabulary), and returns the
// non-empty training documents as sorted term ids; it keeps in t.valid the
// validation documents with at least two in-vocabulary terms, at most
// ValidDocs of them (a seeded random subset). Training documents of more
// than MaxDocTags tags are left out first (leaveOutLong).
func (t *trainer) encode(c *corpus.Corpus, trainIdx, validIdx []int) (*corpus.Vocabulary, [][]int, error) {
	trainIdx, t.longDocs = leaveOutLong(c, trainIdx, t.cfg.MaxDocTags)
	vocab, docs, k, rare := trainVocabulary(c.Select(trainIdx), t.cfg.MaxTerms)
	t.minTermDocs, t.rareTerms = k, rare
	V := vocab.Len()
	if V < 2 {
		return nil, nil, fmt.Errorf("training documents hold %d distinct terms, need at least 2", V)
	}
	t.cfg = t.cfg.forVocabulary(V)
	if len(docs) < 2 {
		return nil, nil, fmt.Errorf("%d non-empty training documents, need at least 2", len(docs))
	}
	for _, ids := range vocab.EncodeAll(c.Select(validIdx)) {
		if b := features.BoW(ids); len(b) >= 2 {
			t.valid = append(t.valid, b)
		}
	}
	if len(t.valid) > t.cfg.ValidDocs {
		perm := t.rng.Perm(len(t.valid))[:t.cfg.ValidDocs]
		slices.Sort(perm)
		sub := make([][]int, len(perm))
		for i, p := range perm {
			sub[i] = t.valid[p]
		}
		t.valid = sub
	}
	if len(t.valid) == 0 {
		return nil, nil, errors.New("no validation document with at least two in-vocabulary terms (early stopping needs some)")
	}
	t.sampleValidTerms(V, t.cfg.ValidTerms)
	return vocab, docs, nil
}

// inputs computes the network's inputs — the term features t(τ) of Eq. 2
// (PCA, scaling, §5.2) and the local contexts l(δ) of Eq. 3 (LDA, §3.2, then
// PCA and scaling) — and sets up the training set, the model under
// construction and its Info.
func (t *trainer) inputs(c *corpus.Corpus, vocab *corpus.Vocabulary, docs [][]int) error {
	cfg := t.cfg
	V := vocab.Len()
	t.report(Progress{Stage: "features", Message: fmt.Sprintf("%d training documents, %d terms", len(docs), V) + t.longNote() + t.rareNote()})
	scaling, err := features.ParseScaling(cfg.InputScaling)
	if err != nil {
		return err
	}
	if cfg.TermNorm != "unit" && cfg.TermNorm != "none" {
		return fmt.Errorf("unknown term normalization %q (want unit or none)", cfg.TermNorm)
	}
	terms, lda, raw, err := t.prepare(docs, V, scaling)
	if err != nil {
		return err
	}
	K := lda.NumTopics()
	ctxProj, err := features.FitPCA(raw, &features.PCAOptions{Scaling: scaling})
	if err != nil {
		return fmt.Errorf("context PCA: %w", err)
	}
	set := &trainSet{v: V, docs: docs, termX: make([][]float64, V), ctxX: make([][]float64, len(docs)), ctxRaw: make([][]float64, len(docs)), balanced: cfg.Kappa == KappaBalanced}
	for i := range set.termX {
		set.termX[i] = terms.Row(i)
	}
	for i := range docs {
		set.ctxRaw[i] = raw.RawRowView(i)
		set.ctxX[i] = make([]float64, ctxProj.Out)
		ctxProj.TransformTo(set.ctxX[i], set.ctxRaw[i])
		if len(docs[i]) >= 2 {
			set.multi = append(set.multi, i)
		}
	}
	set.addMean(cfg.Context)
	if cfg.Stage2Loss == Stage2Completion {
		set.looCtx = func(dst []float64, doc []int) { ldaContextTo(lda, ctxProj, dst, doc) }
	}
	t.set = set
	sizes := append(append([]int{set.inputDim()}, cfg.Hidden...), V)
	t.m = &Model{vocab: vocab, terms: terms, ctxProj: ctxProj, lda: lda, sizes: sizes, params: map[Variant][]float64{}}
	t.m.info = Info{Corpus: c.Name, Docs: len(c.Docs), TrainDocs: len(docs), ValidDocs: len(t.valid), Seed: cfg.Seed,
		Topics: K, TermDim: terms.Dim(), ContextDim: set.ctxDim(), Context: cfg.Context, Stage2Loss: cfg.Stage2Loss, LearningRate2: cmp.Or(cfg.LearningRate2, cfg.LearningRate), Hidden: cfg.Hidden, BatchSize: cfg.BatchSize,
		LearningRate: cfg.LearningRate, Momentum: cfg.Momentum, Decay: cfg.Decay, DecayEvery: cfg.DecayEvery,
		Rho: cfg.Rho, Beta: cfg.Beta, WithinDoc: cfg.WithinDoc, WithinDocI3: cfg.WithinDocI3,
		OutputSample: cfg.outputSample(V), EarlyStop: cfg.EarlyStop, InputScaling: cfg.InputScaling, TermNorm: cfg.TermNorm, TermSmooth: cfg.TermSmooth,
		Average: max(cfg.Average, 0), Kappa: cfg.Kappa,
		SplitSeed: cfg.SplitSeed, SplitFromFile: cfg.SplitFromFile}
	if cfg.Stage2Loss == Stage2Ranking || cfg.Stage2Loss == Stage2Completion {
		t.m.info.RankingGroup, t.m.info.RankingTemperature = cfg.RankingGroup, cfg.RankingTemperature
		t.m.info.RankingAnchors = cfg.RankingAnchors
	}
	t.recordLeftOut(&t.m.info)
	t.m.info.ValidTerms = len(t.validTerms)
	t.m.info.ValidP2Random = randomP2(t.valid, cmp.Or(len(t.validTerms), V))
	return nil
}

// stage0 initialises the network: sparse auto-encoder pre-training on a random
// subset of stage-1 inputs, or Glorot initialisation when disabled.
func (t *trainer) stage0() error {
	cfg := t.cfg
	if cfg.PretrainIterations < 0 {
		t.net = t.randomNet()
		return nil
	}
	t.report(Progress{Stage: "stage0", Fraction: 0.05, ETA: t.etaFrom(true), Message: "sparse auto-encoder pre-training"})
	ex := t.set.epochExamples(t.rng, cfg.PretrainExamples, nil)
	x := mat.NewDense(len(ex), t.m.sizes[0], nil)
	t.set.fillInputs(ex, x.RawMatrix().Data)
	// Under an explicit time limit pre-training gets at most a fifth of it;
	// past that the network starts from its random initialisation instead.
	preCtx, cancel := t.within(cfg.MaxTime / 5)
	net, err := nn.Pretrain(preCtx, x, t.m.sizes, nn.AEConfig{
		Sparsity: cfg.Sparsity, WeightDecay: cfg.WeightDecay,
		MaxIterations: cfg.PretrainIterations, MaxExamples: -1,
	}, rand.New(rand.NewPCG(cfg.Seed, 2)))
	cancel()
	if err != nil && t.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		t.report(Progress{Stage: "stage0", Fraction: 0.09, Message: "time limit: pre-training skipped"})
		t.net = t.randomNet()
		return nil
	}
	if err != nil {
		return err
	}
	t.net = net
	t.m.info.Pretrained = true
	return nil
}

// randomNet returns the network with its random (Glorot) initialisation, the
// start wherever stage 0 does not pre-train: without pre-training, after its
// time limit and after a flat stage 1 (FlatStage1); the same weights each time.
func (t *trainer) randomNet() *nn.MLP {
	return nn.NewMLP(t.m.sizes, rand.New(rand.NewPCG(t.cfg.Seed, 2)))
}

// validation holds the validation figures of one set of weights.
type validation struct {
	p2     float64 // P@2 of the priming protocol (Eq. 8, 10)
	mapExt float64 // MAP of the extended priming protocol (Eq. 9, 11)
	mrr    float64 // MRR of the completion protocol, with EarlyStopCompletion only
}

// score returns the figure of the early-stopping criterion c (Config.EarlyStop).
func (v validation) score(c string) float64 {
	if c == EarlyStopP2 {
		return v.p2
	}
	if c == EarlyStopCompletion {
		return v.mrr
	}
	return v.mapExt
}

// validate returns the validation figures of params on the validation documents.
func (t *trainer) validate(params []float64) (validation, error) {
	defer func(start time.Time) { t.timeValidation(time.Since(start)) }(time.Now())
	em := t.validModel(params)
	opt := &eval.Options{Seed: t.cfg.Seed, Workers: numWorkers}
	rs, err := eval.EvaluateAll(t.ctx, em, []eval.Protocol{eval.Priming, eval.Extended}, t.valid, opt)
	if err != nil {
		return validation{}, err
	}
	v := validation{p2: rs[0].PAtK[1], mapExt: rs[1].MAP}
	if t.cfg.EarlyStop == EarlyStopCompletion { // evaluated alone (eval.EvaluateAll)
		rc, err := eval.EvaluateAll(t.ctx, em, []eval.Protocol{eval.Completion}, t.valid, opt)
		if err != nil {
			return validation{}, err
		}
		v.mrr = rc[0].AUC
	}
	return v, nil
}

// snapshot returns a model whose VariantCE network has the given parameters
// (shared, not copied) and the trainer's inputs, for validate: its network
// embeds the validation sample's terms only when there is one (validTerms).
func (t *trainer) snapshot(params []float64) *Model {
	rows := t.set.termX
	if t.validTerms != nil {
		rows = subsetRows(rows, t.validTerms)
	}
	m := &Model{vocab: t.m.vocab, terms: t.m.terms, ctxProj: t.m.ctxProj, lda: t.m.lda, sizes: t.m.sizes}
	m.info.Context = t.m.info.Context
	m.nets = map[Variant]*embedder{VariantCE: newEmbedder(t.m.sizes, params, rows, t.set.ctxDim(), t.set.prod)}
	return m
}

// early tracks the best validation score and patience (design.md, decision 8).
type early struct {
	crit      string // Config.EarlyStop
	best      float64
	bestVal   validation // figures of the kept weights
	bestEpoch int
	params    []float64
	bad       int
}

// observe records the validation figures of an evaluation and reports whether
// the stage should stop.
func (e *early) observe(v validation, epoch int, params []float64, patience int) (stop bool) {
	if s := v.score(e.crit); e.params == nil || s > e.best {
		e.best, e.bestVal, e.bestEpoch, e.bad = s, v, epoch, 0
		e.params = append(e.params[:0], params...)
		return false
	}
	e.bad++
	return e.bad >= patience
}

func (t *trainer) stageFrac(from, to time.Duration) float64 {
	if t.cfg.MaxTime <= 0 || to <= from {
		return 0
	}
	return min(1, float64(t.elapsed()-from)/float64(to-from))
}
