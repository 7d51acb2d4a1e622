package ce

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/taglens/taglens/ml/features"
)

// Caps of the training parameters. They are the same for `taglens train`, the
// web form and the API, which all check a Config with Validate.
const (
	MaxTopics       = 1000
	MaxHiddenWidth  = 4096
	MaxHiddenLayers = 6
	MaxBatchSize    = 100_000
	MaxLearningRate = 10
	MaxEpochs       = 100_000
	MaxTrainTime    = 7 * 24 * time.Hour
	MaxPretrainIter = 10_000
	// MaxAlpha and MaxLambda bound α (Eq. 7) and λ (Eq. 6) far above their
	// pilot grids (0.05-0.2 and 1-4): λ = 1000 already makes D = 0 for all
	// but identical contexts.
	MaxAlpha  = 1000
	MaxLambda = 1000
	// MaxOutputSample bounds M of the sampled Eq. 5 (the default is 512).
	MaxOutputSample = 100_000
	// MaxTermDim bounds Config.TermDim, the network's term input; the PCA
	// keeps at most one component a term, so a larger cap changes nothing.
	MaxTermDim = 100_000
)

// A ParamError reports a training parameter out of its range. Param is the
// parameter's name as the API spells it ("learning_rate"); the CLI's flag is
// the same name with hyphens (--learning-rate).
type ParamError struct {
	Param  string
	Reason string
}

func (e *ParamError) Error() string { return e.Param + ": " + e.Reason }

// Validate checks the parameters a user can set, as given (before defaults):
// zero means the default, and where a field says so a negative value means
// "none". It returns a *ParamError naming the first bad parameter. Train calls
// it; the CLI, the web form and the API call it before starting a training, so
// a bad value is refused at once with the same message everywhere.
func (c Config) Validate() error {
	bad := func(param, format string, a ...any) error {
		return &ParamError{Param: param, Reason: fmt.Sprintf(format, a...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if len(c.Hidden) > MaxHiddenLayers {
		return bad("hidden", "%d layers: at most %d", len(c.Hidden), MaxHiddenLayers)
	}
	for _, h := range c.Hidden {
		if h < 1 || h > MaxHiddenWidth {
			return bad("hidden", "width %d: must be in 1..%d", h, MaxHiddenWidth)
		}
	}
	switch {
	case c.Topics < 0 || c.Topics > MaxTopics:
		return bad("topics", "%d: must be in 0..%d (0 = chosen automatically)", c.Topics, MaxTopics)
	case c.BatchSize < 0 || c.BatchSize > MaxBatchSize:
		return bad("batch_size", "%d: must be in 0..%d (0 = default)", c.BatchSize, MaxBatchSize)
	case !finite(c.LearningRate) || c.LearningRate < 0 || c.LearningRate > MaxLearningRate:
		return bad("learning_rate", "%v: must be in 0..%d (0 = default)", c.LearningRate, MaxLearningRate)
	case !finite(c.Momentum) || c.Momentum >= 1:
		return bad("momentum", "%v: must be below 1 (0 = default, negative = none)", c.Momentum)
	case !finite(c.Decay) || c.Decay < 0 || c.Decay > 1:
		return bad("decay", "%v: must be in (0, 1] (0 = default)", c.Decay)
	case c.MaxEpochs1 < 0 || c.MaxEpochs1 > MaxEpochs:
		return bad("max_epochs1", "%d: must be in 0..%d (0 = default)", c.MaxEpochs1, MaxEpochs)
	case c.MaxEpochs2 < 0 || c.MaxEpochs2 > MaxEpochs:
		return bad("max_epochs2", "%d: must be in 0..%d (0 = default)", c.MaxEpochs2, MaxEpochs)
	case c.Patience < 0:
		return bad("patience", "%d: must not be negative (0 = default)", c.Patience)
	case c.EpochExamples < 0:
		return bad("epoch_examples", "%d: must not be negative (0 = default)", c.EpochExamples)
	case c.PretrainIterations > MaxPretrainIter:
		return bad("pretrain_iterations", "%d: must be at most %d (0 = default, negative = none)", c.PretrainIterations, MaxPretrainIter)
	case c.EvalEvery < 0:
		return bad("eval_every", "%d: must not be negative (0 = default)", c.EvalEvery)
	case c.MaxTime < 0 || c.MaxTime > MaxTrainTime:
		return bad("max_time", "%v: must be in 0..%v (0 = no limit)", c.MaxTime, MaxTrainTime)
	case !finite(c.Alpha) || c.Alpha < 0 || c.Alpha > MaxAlpha:
		return bad("alpha", "%v: must be a finite number ≥ 0 and at most %d (0 = chosen on validation)", c.Alpha, MaxAlpha)
	case !finite(c.Lambda) || c.Lambda < 0 || c.Lambda > MaxLambda:
		return bad("lambda", "%v: must be a finite number ≥ 0 and at most %d (0 = chosen on validation)", c.Lambda, MaxLambda)
	case c.OutputSample < -1 || c.OutputSample > MaxOutputSample:
		return bad("output_sample", "%d: must be -1 (the exact loss), 0 (the default) or in 1..%d", c.OutputSample, MaxOutputSample)
	case !finite(c.WithinDoc) || c.WithinDoc > 1:
		return bad("within_doc", "%v: must be at most 1 (0 = default, negative = none)", c.WithinDoc)
	case !finite(c.WithinDocI3) || c.WithinDocI3 > 1:
		return bad("within_doc_i3", "%v: must be at most 1 (0 = default, negative = none)", c.WithinDocI3)
	case c.TermDim < 0 || c.TermDim > MaxTermDim:
		return bad("term_dim", "%d: must be in 0..%d (0 = default)", c.TermDim, MaxTermDim)
	case !finite(c.TermSmooth):
		return bad("term_smooth", "%v: must be a finite number (0 = default, negative = none)", c.TermSmooth)
	case !finite(c.Average) || c.Average >= 1:
		return bad("average", "%v: must be below 1 (0 = default, negative = none)", c.Average)
	case c.EarlyStop != "" && c.EarlyStop != EarlyStopMAP && c.EarlyStop != EarlyStopP2 && c.EarlyStop != EarlyStopCompletion:
		return bad("early_stop", "%q: must be %s, %s or %s", c.EarlyStop, EarlyStopMAP, EarlyStopP2, EarlyStopCompletion)
	case c.FlatStage1 != "" && c.FlatStage1 != FlatRestart && c.FlatStage1 != FlatKeep && c.FlatStage1 != FlatStop:
		return bad("flat_stage1", "%q: must be %s, %s or %s", c.FlatStage1, FlatKeep, FlatRestart, FlatStop)
	case c.Kappa != "" && !slices.Contains(Kappas, c.Kappa):
		return bad("kappa", "%q: must be one of %s", c.Kappa, strings.Join(Kappas, ", "))
	case c.Stage2Start != "" && !slices.Contains(Stage2Starts, c.Stage2Start):
		return bad("stage2_start", "%q: must be one of %s", c.Stage2Start, strings.Join(Stage2Starts, ", "))
	case c.Stage2Loss != "" && c.Stage2Loss != Stage2Eq6 && c.Stage2Loss != Stage2Ranking && c.Stage2Loss != Stage2Completion:
		return bad("stage2_loss", "%q: must be %s, %s or %s", c.Stage2Loss, Stage2Eq6, Stage2Ranking, Stage2Completion)
	case c.Stage2Loss == Stage2Completion && (c.RankingGroup < 0 || c.RankingGroup == 1 || c.RankingGroup > 4096):
		return bad("ranking_group", "%d: must be in 2..4096 with the completion loss (0 = default)", c.RankingGroup)
	case c.Stage2Loss != Stage2Completion && (c.RankingGroup < 0 || c.RankingGroup == 1 || c.RankingGroup > 50):
		return bad("ranking_group", "%d: must be in 2..50 (0 = default)", c.RankingGroup)
	case c.Stage2Loss == Stage2Completion && (c.RankingAnchors < 0 || c.RankingAnchors > 64):
		return bad("ranking_anchors", "%d: must be in 0..64 with the completion loss", c.RankingAnchors)
	case c.Stage2Loss != Stage2Completion && (c.RankingAnchors < 0 || c.RankingAnchors > 16):
		return bad("ranking_anchors", "%d: must be in 0..16", c.RankingAnchors)
	case !finite(c.RankingTemperature) || c.RankingTemperature < 0:
		return bad("ranking_temperature", "%v: must be positive (0 = default)", c.RankingTemperature)
	case !finite(c.LearningRate2) || c.LearningRate2 < 0 || c.LearningRate2 > 10:
		return bad("learning_rate2", "%v: must be in [0, 10] (0 = the learning rate of stage 1)", c.LearningRate2)
	case c.Stage2Loss == Stage2Ranking && cmp.Or(c.BatchSize, DefaultBatchSize) < 2*cmp.Or(c.RankingGroup, DefaultRankingGroup)*max(c.RankingAnchors, 1):
		return bad("ranking_group", "%d with %d anchors: the ranking loss needs a batch of at least two groups of group × anchors pairs (batch_size %d)", cmp.Or(c.RankingGroup, DefaultRankingGroup), max(c.RankingAnchors, 1), cmp.Or(c.BatchSize, DefaultBatchSize))
	case c.Width != "" && !slices.Contains(Widths, c.Width):
		return bad("width", "%q: must be one of %s", c.Width, strings.Join(Widths, ", "))
	case c.Context != "" && !slices.Contains(Contexts, c.Context):
		return bad("context", "%q: must be one of %s", c.Context, strings.Join(Contexts, ", "))
	case c.TermNorm != "" && c.TermNorm != "unit" && c.TermNorm != "none":
		return bad("term_norm", "%q: must be unit or none", c.TermNorm)
	}
	if c.InputScaling != "" {
		if _, err := features.ParseScaling(c.InputScaling); err != nil {
			return bad("input_scaling", "%q: must be per-component or common", c.InputScaling)
		}
	}
	return nil
}
