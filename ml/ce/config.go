package ce

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Config holds the hyper-parameters of Train. The zero value means the defaults
// documented on each field; Train records the values it actually used in the model.
//
// The fields a user sets are the documented parameters of Params: each carries
// its Params name in a `param` tag and, but for MaxTime, the same name as its
// JSON key, so that the API's "params" object is a Config and the command
// line's flags and the web form's fields are set with Config.Set. The other
// fields are for programs and tests (JSON "-").
type Config struct {
	// Seed drives every random choice (split of validation documents when the split
	// has none, LDA, negative examples, pairs, initialisation, mini-batch order).
	// The same seed, corpus and split give a byte-identical model file.
	Seed uint64 `json:"-"`

	// SplitSeed and SplitFromFile describe the split the caller passes to Train:
	// the seed of corpus.RandomSplit that drew it, or SplitFromFile when it is the
	// corpus's own split. Train does not use them; it records them in the model's
	// Info so that an evaluation can find the model's test documents again.
	SplitSeed     uint64 `json:"-"`
	SplitFromFile bool   `json:"-"`

	// Topics is the number of LDA topics |Φ| of the local context (§3.2). Zero
	// chooses it automatically (ml/topic's held-out perplexity search).
	Topics int `json:"topics,omitempty" param:"topics"`

	// Hidden are the hidden layer widths; the last is the CE dimension.
	// Default {100, 100, 10}, the paper's choice for MagTag5K (§5.2), up to
	// LargeAbove terms, and LargeHidden above (issue 7): ten dimensions cannot
	// hold the neighbourhoods of thousands of terms. On lastfm-hetrec (seed 1, unit
	// term rows, 300 validation documents) validation extended MAP of the kept
	// weights rose from 0.094 (CE) / 0.19 (Siamese-CE) with a 10-wide CE layer
	// to 0.19 / 0.24 with 50.
	Hidden []int `json:"hidden,omitempty" param:"hidden"`

	// BatchSize is the mini-batch size of stage 1 (examples) and stage 2 (pairs).
	// Default 100.
	BatchSize int `json:"batch_size,omitempty" param:"batch_size"`

	// LearningRate is the initial SGD step of stage 1 and stage 2. Default 0.05.
	//
	// The paper used 1e-4 on MagTag5K with thousands of epochs. Our budget is a
	// few passes over 200k examples, so we use a much larger step; with Eq. 5's
	// 1/(2|Γ|) normalisation per example the gradients are small, and 0.05 with
	// momentum 0.9 converges in a handful of epochs on mtg-jamendo and the demo
	// corpus without divergence (checked in the training log's loss column).
	LearningRate float64 `json:"learning_rate,omitempty" param:"learning_rate"`

	// Momentum is the classical momentum of the SGD update v ← μv − η∇, θ ← θ + v.
	// Default 0.9; a negative value means plain SGD as in Appendix A.4.
	Momentum float64 `json:"-"`

	// Decay multiplies the learning rate after every DecayEvery epochs of stage 1 and
	// every DecayEvery evaluation periods of stage 2 (paper: 0.95 every 10 epochs).
	// Defaults 0.95 and 1: our epochs are few, so we decay every epoch.
	Decay      float64 `json:"decay,omitempty" param:"decay"`
	DecayEvery int     `json:"-"`

	// EpochExamples is the number of examples (stage 1) or pairs (stage 2) of an
	// epoch, the period between validation evaluations: a random subset of one
	// pass on a large corpus, several passes on a small one (see epochExamples).
	// Default DefaultEpochExamples. A fixed period makes patience mean the same
	// amount of learning on every corpus, whatever its size
	// (docs/quality-notes.md, D9).
	EpochExamples int `json:"epoch_examples,omitempty" param:"epoch_examples"`

	// MaxEpochs1 and MaxEpochs2 bound stage 1 and stage 2. Defaults 30, and 30
	// (up to LargeAbove terms) or 20 (above) for stage 2: see SmallPatience;
	// above SampleAbove terms LargeMaxEpochs1 and LargeMaxEpochs2.
	MaxEpochs1 int `json:"max_epochs1,omitempty" param:"max_epochs1"`
	MaxEpochs2 int `json:"max_epochs2,omitempty" param:"max_epochs2"`

	// Patience is the number of consecutive validation evaluations without a new
	// best (on the EarlyStop criterion) after which a stage stops (early
	// stopping, design.md, decision 8). Default SmallPatience (10) up to
	// LargeAbove terms, DefaultPatience (6) above.
	Patience int `json:"patience,omitempty" param:"patience"`

	// EvalEvery is the number of epochs between validation evaluations. Default 1.
	EvalEvery int `json:"-"`

	// MaxTime is an explicit wall-clock limit on the whole training (features,
	// LDA, all stages); zero, the default, means none. Training ends by early
	// stopping (Patience) or the epoch limits, which count examples and
	// evaluations, never seconds, so the same corpus, split, configuration and
	// seed give a byte-identical model file whatever the machine, its load or
	// GOMAXPROCS. A positive MaxTime is the user's own choice to trade that for
	// a bound: stage 1 may then use half of what remains after LDA and
	// pre-training, stage 2 the rest, each keeps its best weights, and the stop
	// reason says that the limit cut it ("time limit").
	MaxTime time.Duration `json:"-" param:"max_time"`

	// MaxDocTags is the longest training document, in tags, that Train uses
	// (longer ones are left out of training: leaveOutLong). Zero means
	// DefaultMaxDocTags, a negative value no limit.
	MaxDocTags int `json:"-"`
	// MaxTerms is the largest vocabulary Train keeps whole; above it the
	// terms of the fewest training documents are left out (leaveOutRare).
	// Zero means DefaultMaxTerms, a negative value no limit.
	MaxTerms int `json:"-"`
	// ValidDocs caps the validation documents used for early stopping. When the
	// split has no validation documents, this many training documents (default 300,
	// as in §5.2) are held out from training at random with Seed.
	ValidDocs int `json:"-"`
	// ValidTerms: above this many vocabulary terms, the validation ranks
	// among a fixed sample of this many (sampleValidTerms). Default
	// ValidTerms.
	ValidTerms int `json:"-"`

	// PretrainExamples is the size of the random subset of stage-1 inputs the
	// sparse auto-encoders are trained on (A.1 uses batch L-BFGS on all examples;
	// a subset keeps stage 0 inside the budget). Default 2,000.
	// PretrainIterations bounds L-BFGS per layer. Default 30: pre-training only
	// initialises the network, and stage 1 refines it. A negative
	// PretrainIterations skips stage 0 (random initialisation).
	PretrainExamples   int `json:"-"`
	PretrainIterations int `json:"pretrain_iterations,omitempty" param:"pretrain_iterations"`

	// FlatStage1 says what happens when stage 1 stays at Eq. 5's all-zero
	// output after stage 0, its first two epochs' training losses within
	// FlatLoss's bounds: FlatStop (taglens's extension) ends stage 1 there,
	// after the second epoch's validation, so that stage 2 starts from the
	// better of the two epochs' weights; FlatRestart (taglens's extension, an
	// option) starts stage 1 again from random initial weights; FlatKeep (the
	// paper) goes on. Empty means the default: FlatStop up to SampleAbove
	// terms, FlatKeep above, where D52's epoch limits already bound stage 1
	// (forVocabulary). On edict-glosses, the one flat corpus of the suite, the
	// epochs FlatKeep adds leave stage 1's validation MAP near the flat
	// start's (0.03-0.05) and cost a third of the training, and stage 2 from
	// the flat start ranks as well; the restart helped one seed of three
	// (docs/quality-notes.md, D58 and D65).
	FlatStage1 string `json:"flat_stage1,omitempty" param:"flat_stage1"`

	// Sparsity is the sparsity weight α of the auto-encoder penalty (A.1),
	// default 0.01; WeightDecay its weight decay, default 0.02 (paper §5.2).
	//
	// The paper's α = 2 does not transfer to our inputs. A.1's loss per example
	// is ‖x̃ − x‖² + α Σ_q √(z_q² + ε): our x has ~180 PCA components each scaled
	// to [−1, 1], and with Q = 100 hidden units α = 2 makes the sparsity term
	// (≈ 2·100·|z|) dwarf the reconstruction error unless every unit is ≈ 0.
	// L-BFGS then returns near-dead encoders, and stage 1 starts at a saddle,
	// at the chance level for several epochs (docs/quality-notes.md, D7).
	Sparsity    float64 `json:"-"`
	WeightDecay float64 `json:"-"`

	// Alpha is the trade-off of Eq. 7 and Lambda the sensitivity of
	// D = exp(−λ/2 · KL_sym). Zero means "choose on the validation criterion
	// (EarlyStop)" from AlphaGrid × LambdaGrid by short pilot runs of stage 2.
	Alpha  float64 `json:"alpha,omitempty" param:"alpha"`
	Lambda float64 `json:"lambda,omitempty" param:"lambda"`

	// AlphaGrid and LambdaGrid are the candidate values for the pilot runs.
	// Defaults {0.05, 0.2} and {1, 4}: with our normalisation (Eq. 5 averaged over
	// examples and divided by 2|Γ|, Eq. 6 averaged over pairs) the prediction loss
	// is about 0.05 and the distance loss about β² = 10 at the start of stage 2, so
	// α of order 0.1 gives both terms gradients of the same order, which is what
	// the paper's α = 1000-2000 did under its normalisation.
	AlphaGrid  []float64 `json:"-"`
	LambdaGrid []float64 `json:"-"`

	// Rho weights I2 (negative, negative) pairs in Eq. 6. Default 0.5 (§5.2).
	// Beta is the spread of Eq. 6. Default √dim(CE) (§5.2).
	Rho  float64 `json:"-"`
	Beta float64 `json:"-"`

	// WithinDoc is the fraction of I1 (positive, positive) pairs drawn from two
	// different terms of one training document rather than from two random
	// positive examples (design.md, decision 7 permits it). A negative value means 0 (the
	// paper's random pairing); zero means the default 0.5. Likewise, WithinDocI3
	// is the fraction of I3 pairs whose negative example is synthesised from the
	// positive example's own document (same context, D = 1), default 0.5.
	// design.md, decision 7 permits this only if validation priming says it
	// helps; it did (docs/quality-notes.md, D12), and TestWithinDocPairs keeps
	// checking it. Info records the fractions used.
	WithinDoc   float64 `json:"within_doc,omitempty" param:"within_doc"`
	WithinDocI3 float64 `json:"-"`

	// OutputSample selects the prediction loss of stage 1 and stage 2 (issue 7,
	// item 2). A positive value is the number M of output units drawn uniformly
	// per mini-batch for the sampled Eq. 5 (nn.SampledPredictionLoss: every
	// listed unit of the batch's targets is scored exactly, the others are
	// estimated from the M sampled units with Horvitz-Thompson weight |Γ|/M, an
	// unbiased estimate of Eq. 5 whose cost per example does not grow with |Γ|).
	// A negative value forces the exact Eq. 5. Zero chooses: exact for
	// vocabularies of up to SampleAbove terms, sampled with M =
	// DefaultOutputSample above (docs/quality-notes.md, D13;
	// TestSampledLossOnMTGJamendo checks that it scores like the exact loss).
	OutputSample int `json:"output_sample,omitempty" param:"output_sample"`

	// EarlyStop is the validation criterion of early stopping, of the weights
	// kept by each stage and of the α, λ pilots: EarlyStopMAP (the default, MAP
	// of the extended priming protocol on the validation documents, design.md,
	// decision 8) or EarlyStopP2 (P@2 of the priming protocol). Both
	// figures are computed and logged at every evaluation, so either can be
	// read off the training log whichever selects.
	//
	// Why MAP: in the priming protocol the query itself is always ranked first
	// (distance 0), so P@2 = (1 + h)/2 with h the hit rate of one rank
	// position, whose noise on the validation documents is the size of the
	// changes between epochs; extended MAP scores the whole ranked list of every
	// validation document (docs/quality-notes.md, D16-D19).
	EarlyStop string `json:"early_stop,omitempty" param:"early_stop"`

	// Stage2Start is where stage 2 starts: Stage2Choose or Stage2Best; empty
	// chooses by the vocabulary (Stage2Best up to Stage2ChooseAbove terms,
	// Stage2Choose above). §4.3.3 starts the Siamese stage from the weights stage 1
	// learned; Stage2Best takes the best stage-1 weights on validation (the
	// ones kept as the "CE" variant). Stage2Choose also runs one pilot, with
	// the α and λ the grid chose, from the weights of stage 1's first
	// evaluation, and starts stage 2 from whichever pilot scores higher on
	// validation. It applies only when the α × λ grid runs (Alpha or Lambda
	// zero) and the two stage-1 weights differ; Info.Stage2From records the
	// stage-1 epoch stage 2 started from.
	//
	// Why: on the large vocabularies validation extended MAP of stage 1 is
	// highest or nearly so after the first epoch — whose averaged weights still
	// hold much of the pre-trained encoder of t(τ), which alone ranks about as
	// well as PCA — drops at the second and recovers slowly, and stage 2 from
	// the first epoch learned better distances; on smaller vocabularies the
	// pilot's lead did not last, hence Stage2ChooseAbove (docs/quality-notes.md,
	// D22, D23).
	Stage2Start string `json:"stage2_start,omitempty" param:"stage2_start"`

	// Kappa selects the class weights of Eq. 5 (nn.Target.Weights):
	// KappaPrinted weighs a target's present entries by κ and its absent ones
	// by 1 − κ, as Eq. 5 is printed; KappaBalanced swaps them, the reading of
	// §4.3.2's words ("we re-weight the cost of a false negative error ... to
	// avoid a trivial solution where all terms are predicted to be absent"),
	// which gives both classes the same total weight; KappaBalancedStage2
	// keeps the printed weights in stage 1 (the "CE" variant) and balances
	// them in the prediction losses of stage 2 (Eq. 7). Empty means
	// DefaultKappa.
	Kappa string `json:"kappa,omitempty" param:"kappa"`

	// TermDim caps the principal components of the term features t(τ) kept
	// by the PCA before the network (§4.2); zero means the default: every
	// component of non-negligible variance up to features.DefaultExactMaxTerms
	// terms (the exact PCA), features.DefaultRandomizedDim above (the
	// randomized one).
	TermDim int `json:"term_dim,omitempty" param:"term_dim"`

	// Average is γ of the moving average of the weights kept during stage 1,
	// the pilots and stage 2 (nn.SGD.Average): validation, early stopping and
	// the saved model use the averaged weights. A negative value means no
	// averaging (the last SGD iterate, as the paper). Zero means DefaultAverage.
	//
	// Why: with few epochs and a step that decays little, validation MAP
	// jumped between epochs and early stopping kept whichever epoch happened
	// to be high on a noisy criterion. γ = 0.998 is a time constant of 500
	// mini-batches, about half an epoch (docs/quality-notes.md, D10).
	Average float64 `json:"average,omitempty" param:"average"`

	// InputScaling is how both input parts, after PCA, are scaled into
	// [−1, +1] (design.md, decision 4, §5.2): "per-component" (each component's
	// training range on its own) or "common" (one factor for all components of
	// a part, keeping the geometry of the PCA scores); see features.Scaling.
	// Empty means DefaultInputScaling.
	InputScaling string `json:"input_scaling,omitempty" param:"input_scaling"`

	// TermNorm is "unit" (every row t(τ) of Eq. 2 scaled to unit length before
	// the PCA; features.TermFeatures.Normalize) or "none" (Eq. 2 as printed).
	// Empty chooses: none up to LargeAbove terms, unit above. On a large
	// vocabulary the rows of Eq. 2 differ in norm by orders of magnitude, and
	// without the normalization the scaled input has lost the co-occurrence
	// neighbourhoods before the network sees it; the paper's small
	// vocabularies did not gain consistently, so Eq. 2 stays as printed there
	// (docs/quality-notes.md, D1, D5).
	TermNorm string `json:"term_norm,omitempty" param:"term_norm"`

	// TermSmooth is α of Mandel et al.'s (2011) smoothing of the training
	// documents before Eq. 2's aggregation (features.TermFeatures.Smooth: each
	// document also holds, with weight α, the strongest Eq. 2 associate of
	// each of its terms). A negative value means none (Eq. 2 as printed); zero
	// chooses: none up to LargeAbove terms, DefaultTermSmooth above (issue 7).
	//
	// Why: on a large vocabulary many documents hold 2-5 tags, and the rows
	// t(τ) of their mid- and low-frequency tags keep little of their
	// co-occurrence identity after the PCA; InfoTheo, which smooths its input
	// this way, ranked those documents better. On the paper's small
	// vocabularies the smoothing gave mixed results within the seed-to-seed
	// spread, so Eq. 2 stays as printed there (docs/quality-notes.md, D4, D5).
	TermSmooth float64 `json:"term_smooth,omitempty" param:"term_smooth"`

	// Context is what the context part of x(τ,δ) holds: ContextLDA, the
	// paper's l(δ) (Eq. 3), or ContextLDAMean, l(δ) followed by the mean of
	// the scaled rows t(τ') of the document's terms (taglens's extension,
	// design.md, decision 4). With the mean, a positive training example
	// (τ ∈ δ, δ) sees the mean over δ without τ, so the network cannot learn
	// that a term is in its document from its own row in the mean.
	// ContextLDAMeanProduct adds to the input, after the context part, the
	// products t(τ)_i·m_i of the first components of the focused term's row
	// and of that mean (taglens's extension, design.md, decision 4): a tanh
	// layer on a concatenation learns a dot product of two of its inputs only
	// with many units, and the products hand it the term's match with the
	// document's other terms. Empty means DefaultContext.
	Context string `json:"context,omitempty" param:"context"`

	// Stage2Loss is the distance loss of stage 2: Stage2Eq6, the paper's
	// Eq. 6, or Stage2Ranking, nn.GroupLoss over groups of RankingGroup pairs
	// (an anchor term of a training document, another term of it and
	// RankingGroup−1 terms outside it, all in the document's context:
	// trainSet.sampleGroups; taglens's extension, design.md, decision 7).
	// Empty means DefaultStage2Loss.
	Stage2Loss string `json:"stage2_loss,omitempty" param:"stage2_loss"`
	// Width is WidthFit, each term's distances in units of a width that
	// grows with its document frequency, fitted on the validation documents
	// (taglens's extension, width.go), or WidthNone, the paper's distances.
	// Empty means DefaultWidth.
	Width string `json:"width,omitempty" param:"width"`
	// RankingGroup is the group size of Stage2Ranking (0: 10) and
	// RankingTemperature its temperature T (0: 1).
	RankingGroup       int     `json:"ranking_group,omitempty" param:"ranking_group"`
	RankingTemperature float64 `json:"ranking_temperature,omitempty" param:"ranking_temperature"`
	// RankingAnchors A ≥ 2 selects the set form of Stage2Ranking (taglens's
	// extension): each group holds a held-out term of a training document and
	// RankingGroup−1 terms outside it, each paired with A other terms of the
	// document, all in the context δ minus the held-out term; a candidate
	// scores by its nearest anchor, as Eq. 9 ranks (trainSet.sampleSetGroups).
	// 0 or 1: one anchor, the form above.
	RankingAnchors int `json:"ranking_anchors,omitempty" param:"ranking_anchors"`
	// LearningRate2 is the initial SGD step of stage 2 and its pilots; zero
	// means LearningRate.
	LearningRate2 float64 `json:"learning_rate2,omitempty" param:"learning_rate2"`

	// epochHook, if not nil, is called after every validation evaluation of
	// stage 1, the pilots and stage 2 with the stage name, the epoch and the
	// trainer (read only). Tests use it to log further validation figures
	// (extended-priming MAP) per epoch and to compare training and inference.
	epochHook func(stage string, epoch int, t *trainer)
	// flatLoss, when not 0, replaces FlatLoss (tests force a restart with it).
	flatLoss float64
}

// Contexts of Config.Context.
const (
	ContextLDA            = "lda"
	ContextLDAMean        = "lda+mean"
	ContextLDAMeanProduct = "lda+mean+product"
	DefaultContext        = ContextLDA
)

// Distance losses of stage 2 (Config.Stage2Loss).
const (
	Stage2Eq6     = "eq6"
	Stage2Ranking = "ranking"
	// Stage2Completion is the completion form (taglens's extension,
	// nn.SetLoss): a held-out term of a training document among
	// RankingGroup−1 terms outside it, each scored by its nearest of up to
	// RankingAnchors other terms of the document, all in the context δ minus
	// the held-out term, each example computed once.
	Stage2Completion  = "completion"
	DefaultStage2Loss = Stage2Eq6

	// DefaultRankingGroup and DefaultRankingTemperature are the defaults of
	// Config.RankingGroup and RankingTemperature.
	DefaultRankingGroup = 10
	// The candidates, anchors, T, stage-2 step (stage 1's collapses a group's
	// CEs to one point) and α (AlphaGrid of one value: no pilots) of the
	// completion form, chosen on validation documents (quality notes, D67 and
	// D68).
	DefaultCompletionGroup         = 64
	DefaultCompletionAnchors       = 8
	DefaultCompletionTemperature   = 1.0
	DefaultCompletionLearningRate2 = 0.005
	DefaultCompletionAlpha         = 0.5
	DefaultRankingTemperature      = 1.0
)

// DefaultBatchSize is the default Config.BatchSize.
const DefaultBatchSize = 100

// Contexts are the accepted values of Config.Context.
var Contexts = []string{ContextLDA, ContextLDAMean, ContextLDAMeanProduct}

// hasMean reports whether context part c ends with the document's mean term
// row.
func hasMean(c string) bool { return c == ContextLDAMean || c == ContextLDAMeanProduct }

// DefaultAverage is the default Config.Average.
const DefaultAverage = 0.998

// DefaultTermSmooth is the default Config.TermSmooth above LargeAbove terms:
// the α InfoTheo's own tuning chooses on lastfm-hetrec (k = 1, α = 0.5).
const DefaultTermSmooth = 0.5

// Class weights of Eq. 5 (Config.Kappa).
const (
	KappaPrinted  = "printed"  // present entries κ, absent 1 − κ (Eq. 5 as printed)
	KappaBalanced = "balanced" // present entries 1 − κ, absent κ (§4.3.2's words)
	// KappaBalancedStage2 is KappaPrinted in stage 1, KappaBalanced in stage 2.
	KappaBalancedStage2 = "balanced-stage2"
)

// Kappas are the values of Config.Kappa, the default first: the one list the
// CLI, the web form and the API check against.
var Kappas = []string{KappaBalancedStage2, KappaPrinted, KappaBalanced}

// DefaultKappa is the default Config.Kappa, chosen on the validation subsets
// of the development suite: balancing the whole of training made stage 1's CE
// collapse on some corpora while Siamese-CE gained; balancing stage 2 only
// keeps CE as printed and kept most of the gain (docs/quality-notes.md, D20).
const DefaultKappa = KappaBalancedStage2

// What stage 1 does when it stays at Eq. 5's all-zero output (Config.FlatStage1).
const (
	FlatKeep    = "keep"    // go on (the paper; the default above SampleAbove terms)
	FlatRestart = "restart" // start stage 1 again from random initial weights, once
	FlatStop    = "stop"    // end stage 1 after its second epoch; stage 2 starts from the better of the two (the default up to SampleAbove terms)
)

// FlatLoss bounds a flat stage 1. Eq. 5 is exactly 0 when every output is 0;
// a stage 1 counts as flat when its training loss is within 10·FlatLoss of 0
// after its first epoch and within FlatLoss after its second. A network that
// tells a document's terms from the others moves away from 0 at once (every
// corpus of the development suite but one is below −0.09 after its second
// epoch), while one that cannot stays there (edict-glosses, seeds 1-3: 4-7×10⁻⁴,
// then 0.8-1.5×10⁻⁵; docs/quality-notes.md, D57 and D58).
const FlatLoss = 1e-3

// Starts of stage 2 (Config.Stage2Start).
const (
	Stage2Choose = "choose" // a pilot from stage 1's first and from its best weights; the better one
	Stage2Best   = "best"   // the best stage-1 weights on validation
)

// Stage2Starts are the values of Config.Stage2Start (the default depends on the
// vocabulary: Stage2ChooseAbove).
var Stage2Starts = []string{Stage2Choose, Stage2Best}

// Stage2ChooseAbove is the vocabulary size above which Config.Stage2Start
// defaults to Stage2Choose; up to it the default is Stage2Best. Chosen on the
// validation documents of the development suite's trainings: on the two large
// vocabularies where the pilot from stage 1's first epoch won, the whole of
// stage 2 from there ended higher; on movielens-small (1,152 terms) a pilot
// that started faster ended lower (docs/quality-notes.md, D23).
const Stage2ChooseAbove = SampleAbove

// DefaultInputScaling is the default Config.InputScaling.
const DefaultInputScaling = "per-component"

// DefaultEpochExamples is the default Config.EpochExamples.
const DefaultEpochExamples = 120000

// DefaultEarlyStop and DefaultPatience are the default Config.EarlyStop and
// Config.Patience, chosen on the validation subsets of the development suite
// (docs/quality-notes.md, D19).
const (
	DefaultEarlyStop = EarlyStopMAP
	DefaultPatience  = 6
)

// Early-stopping criteria (Config.EarlyStop).
const (
	EarlyStopMAP = "extended-map" // MAP of the extended priming protocol (Eq. 9, 11)
	EarlyStopP2  = "priming-p2"   // P@2 of the priming protocol (Eq. 8, 10)
	// EarlyStopCompletion is the mean reciprocal rank of the completion
	// protocol (eval.Completion): each term of a validation document held out
	// of its context and ranked among the terms outside it.
	EarlyStopCompletion = "completion-mrr"
)

// Defaults of the automatic choice of the prediction loss (Config.OutputSample).
//
// The sampled loss pays for its bookkeeping (drawing the sample, gathering the
// sampled rows of W_H) only when the vocabulary is large: BenchmarkStage1/2
// put the crossover between 2,000 and 4,000 terms (docs/quality-notes.md,
// D13). Hence exact up to SampleAbove = 3000 terms, sampled with M = 512 above.
const (
	SampleAbove         = 3000
	DefaultOutputSample = 512
)

// outputSample returns M of the sampled Eq. 5 for a vocabulary of v terms, or 0
// for the exact loss.
func (c Config) outputSample(v int) int {
	switch {
	case c.OutputSample < 0:
		return 0
	case c.OutputSample > 0:
		return c.OutputSample
	case v > SampleAbove:
		return DefaultOutputSample
	}
	return 0
}

// withDefaults returns a copy of c with every zero field set to its default.
func (c Config) withDefaults() Config {
	c.Hidden = slices.Clone(c.Hidden) // the default depends on |Γ|: forVocabulary
	setInt(&c.BatchSize, DefaultBatchSize)
	if c.Context == "" {
		c.Context = DefaultContext
	}
	if c.Stage2Loss == "" {
		c.Stage2Loss = DefaultStage2Loss
	}
	if c.Width == "" {
		c.Width = DefaultWidth
	}
	if c.Stage2Loss == Stage2Completion {
		setInt(&c.RankingGroup, DefaultCompletionGroup)
		setInt(&c.RankingAnchors, DefaultCompletionAnchors)
		setF(&c.RankingTemperature, DefaultCompletionTemperature)
		setF(&c.LearningRate2, DefaultCompletionLearningRate2)
		if len(c.AlphaGrid) == 0 {
			c.AlphaGrid = []float64{DefaultCompletionAlpha}
		}
	}
	setInt(&c.RankingGroup, DefaultRankingGroup)
	setF(&c.RankingTemperature, DefaultRankingTemperature)
	setF(&c.LearningRate, 0.05)
	setF(&c.Momentum, 0.9)
	if c.Momentum < 0 {
		c.Momentum = 0
	}
	setF(&c.Decay, 0.95)
	setF(&c.Average, DefaultAverage)
	setInt(&c.DecayEvery, 1)
	setInt(&c.EvalEvery, 1)
	setInt(&c.ValidDocs, 300)
	setInt(&c.ValidTerms, ValidTerms)
	setInt(&c.MaxDocTags, DefaultMaxDocTags)
	setInt(&c.MaxTerms, DefaultMaxTerms)
	setInt(&c.PretrainExamples, 2000)
	setInt(&c.PretrainIterations, 30)
	setF(&c.Sparsity, 0.01)
	setF(&c.WeightDecay, 0.02)
	if len(c.AlphaGrid) == 0 {
		c.AlphaGrid = []float64{0.05, 0.2}
	}
	if len(c.LambdaGrid) == 0 {
		c.LambdaGrid = []float64{1, 4}
	}
	setF(&c.Rho, 0.5)
	if c.EarlyStop == "" {
		c.EarlyStop = DefaultEarlyStop
	}
	if c.InputScaling == "" {
		c.InputScaling = DefaultInputScaling
	}
	if c.Kappa == "" {
		c.Kappa = DefaultKappa
	}

	setF(&c.WithinDoc, 0.5)
	if c.WithinDoc < 0 {
		c.WithinDoc = 0
	}
	setF(&c.WithinDocI3, 0.5)
	if c.WithinDocI3 < 0 {
		c.WithinDocI3 = 0
	}
	return c
}

func setInt(p *int, def int) {
	if *p == 0 {
		*p = def
	}
}

// check reports settings outside their meaningful range, after withDefaults:
// an average factor γ ≥ 1 never forgets the first iterate (or diverges), a
// decay outside (0, 1] grows the step, fractions of pairs above 1 mean nothing.
func (c Config) check() error {
	switch {
	case !(c.LearningRate > 0):
		return fmt.Errorf("learning rate %v: must be positive", c.LearningRate)
	case !(c.Decay > 0 && c.Decay <= 1):
		return fmt.Errorf("learning-rate decay %v: must be in (0, 1]", c.Decay)
	case !(c.Average < 1): // negative: no averaging; NaN fails here too
		return fmt.Errorf("weight average γ %v: must be below 1 (negative for none)", c.Average)
	case c.WithinDoc > 1 || c.WithinDocI3 > 1:
		return fmt.Errorf("within-document pair fractions %v, %v: must be at most 1", c.WithinDoc, c.WithinDocI3)
	case !slices.Contains(Kappas, c.Kappa):
		return fmt.Errorf("class weights %q: must be one of %s", c.Kappa, strings.Join(Kappas, ", "))
	case c.Stage2Start != "" && !slices.Contains(Stage2Starts, c.Stage2Start): // "" is resolved by forVocabulary
		return fmt.Errorf("start of stage 2 %q: must be one of %s", c.Stage2Start, strings.Join(Stage2Starts, ", "))
	case c.MaxTime < 0:
		return fmt.Errorf("time limit %v: must not be negative (zero for none)", c.MaxTime)
	case math.IsNaN(c.TermSmooth) || math.IsInf(c.TermSmooth, 0):
		return fmt.Errorf("term smoothing α %v: must be finite", c.TermSmooth)
	}
	return nil
}

func setF(p *float64, def float64) {
	if *p == 0 {
		*p = def
	}
}
