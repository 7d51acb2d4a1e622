package ce

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/taglens/taglens/ml/features"
)

// A Param documents one training parameter of Config for every front end, so
// that the command line, the web form and the API say the same thing: Name is
// the parameter's name in the API's "params" object and in ParamError (the
// JSON name), Flag the flag of `taglens train`, Label the form's label,
// Default the default in words and Help one sentence on what it does.
type Param struct {
	Name, Flag, Label, Default, Help string
}

// Usage is the parameter's help with its default, as a flag's usage text.
func (p Param) Usage() string {
	return fmt.Sprintf("%s (default: %s)", p.Help, p.Default)
}

// Params are the documented training parameters, in the order the training
// form shows them.
var Params = []Param{
	{Name: "max_time", Flag: "max-time", Label: "Time limit", Default: "none",
		Help: "wall-clock limit of the whole training; without one training ends by early stopping and the epoch limits, so the same seed gives the same model file on any machine, which a limit gives up"},
	{Name: "hidden", Flag: "hidden", Label: "Hidden layers", Default: "100,100,10; 100,100,50 above 1000 terms",
		Help: "widths of the tanh layers, comma-separated; the last is the CE dimension"},
	{Name: "topics", Flag: "topics", Label: "LDA topics", Default: "chosen by held-out perplexity (0)",
		Help: "topics of the local context l(τ|δ) (Eq. 3)"},
	{Name: "batch_size", Flag: "batch-size", Label: "Batch size", Default: "100",
		Help: "mini-batch size of stage 1 (examples) and stage 2 (pairs)"},
	{Name: "learning_rate", Flag: "learning-rate", Label: "Learning rate", Default: "0.05",
		Help: "initial SGD step of stage 1 and stage 2"},
	{Name: "decay", Flag: "decay", Label: "Learning-rate decay", Default: "0.95",
		Help: "factor applied to the learning rate after every epoch of both stages"},
	{Name: "max_epochs1", Flag: "max-epochs1", Label: "Max epochs, stage 1", Default: "30",
		Help: "epoch limit of prediction learning (Eq. 5); early stopping usually ends it sooner"},
	{Name: "max_epochs2", Flag: "max-epochs2", Label: "Max epochs, stage 2", Default: "30 up to 1000 terms, 20 above",
		Help: "epoch limit of Siamese distance learning (Eq. 6-7)"},
	{Name: "early_stop", Flag: "early-stop", Label: "Early stopping on", Default: DefaultEarlyStop,
		Help: "validation criterion of early stopping, of the kept weights and of the α, λ pilots: " + EarlyStopMAP + " (extended-priming MAP), " + EarlyStopP2 + " (priming P@2) or " + EarlyStopCompletion + " (the completion protocol's mean reciprocal rank: each term of a document held out of its context)"},
	{Name: "patience", Flag: "patience", Label: "Patience", Default: "10 up to 1000 terms, 6 above",
		Help: "validation evaluations without a new best before a stage stops"},
	{Name: "epoch_examples", Flag: "epoch-examples", Label: "Examples per epoch", Default: fmt.Sprint(DefaultEpochExamples),
		Help: "examples (stage 1) or pairs (stage 2) per epoch, the period between validation evaluations"},
	{Name: "kappa", Flag: "kappa", Label: "Class weights of Eq. 5", Default: DefaultKappa,
		Help: KappaPrinted + " (present entries κ, absent 1−κ, as printed), " + KappaBalanced + " (present 1−κ, absent κ: both classes weigh the same) or " + KappaBalancedStage2 + " (printed in stage 1, balanced in stage 2)"},
	{Name: "stage2_start", Flag: "stage2-start", Label: "Start of stage 2", Default: fmt.Sprintf("%s up to %d terms, %s above", Stage2Best, Stage2ChooseAbove, Stage2Choose),
		Help: Stage2Choose + " (a pilot from stage 1's first and from its best weights, the better one on validation) or " + Stage2Best + " (stage 1's best weights)"},
	{Name: "pretrain_iterations", Flag: "pretrain-iterations", Label: "Pre-training iterations", Default: "30",
		Help: "L-BFGS iterations per layer of the sparse auto-encoders that initialise the network (Appendix A.1); negative = none (random initialisation)"},
	{Name: "flat_stage1", Flag: "flat-stage1", Label: "Flat stage 1", Default: fmt.Sprintf("%s up to %d terms, %s above", FlatStop, SampleAbove, FlatKeep),
		Help: "what stage 1 does when its training loss of Eq. 5 stays at its all-zero-output value through its first two epochs after stage 0: " + FlatKeep + " (go on, as the paper does), " + FlatRestart + " (start stage 1 again once from random initial weights) or " + FlatStop + " (end stage 1 there; stage 2 starts from the better of the two epochs); restart and stop are taglens's extensions"},
	{Name: "alpha", Flag: "alpha", Label: "α (Eq. 7)", Default: fmt.Sprintf("chosen by pilot runs on validation (0); %g with the completion loss", DefaultCompletionAlpha),
		Help: "trade-off of the prediction and the distance loss"},
	{Name: "lambda", Flag: "lambda", Label: "λ (Eq. 6)", Default: "chosen by pilot runs on validation (0)",
		Help: "sensitivity of the context similarity D = exp(−λ/2·KL_sym)"},
	{Name: "within_doc", Flag: "within-doc", Label: "Within-document pairs", Default: "0.5",
		Help: "fraction of stage-2 (positive, positive) pairs drawn from two terms of one training document; negative = none, the paper's random pairing"},
	{Name: "average", Flag: "average", Label: "Weight average γ", Default: fmt.Sprint(DefaultAverage),
		Help: "γ of the moving average of the weights used for validation and saved; negative = the last SGD iterate"},
	{Name: "output_sample", Flag: "output-sample", Label: "Sampled output units", Default: fmt.Sprintf("exact up to %d terms, %d above", SampleAbove, DefaultOutputSample),
		Help: "output units M sampled per batch by the sampled Eq. 5; -1 = exact"},
	{Name: "input_scaling", Flag: "input-scaling", Label: "Input scaling", Default: DefaultInputScaling,
		Help: "scaling of the PCA-decorrelated input parts into (-1,1): per-component or common"},
	{Name: "term_norm", Flag: "term-norm", Label: "Term rows", Default: "none up to 1000 terms, unit above",
		Help: "term features t(τ) before the PCA: unit (rows scaled to unit length) or none (Eq. 2 as printed)"},
	{Name: "context", Flag: "context", Label: "Context part", Default: DefaultContext,
		Help: ContextLDA + " (the paper's LDA topic mixture l(δ)) or " + ContextLDAMean + " (l(δ) and the mean term features of the document, leave-one-out in training) or " + ContextLDAMeanProduct + " (lda+mean, and the products of the term's features with that mean as more inputs)"},
	{Name: "stage2_loss", Flag: "stage2-loss", Label: "Distance loss of stage 2", Default: DefaultStage2Loss,
		Help: Stage2Eq6 + " (the paper's Eq. 6), " + Stage2Ranking + " (a softmax over the squared CE distances of a term to another term of its document and to terms outside it, in the document's context) or " + Stage2Completion + " (a softmax over a held-out term of a document and terms outside it, each scored by its CE distance to the nearest of the document's other terms, all in the context without the held-out term: the completion protocol's situation)"},
	{Name: "width", Flag: "width", Label: "Term widths", Default: DefaultWidth,
		Help: WidthFit + " (a term's distances divided by its width (1 + its document count)^β, β chosen on the validation documents: a broad tag reaches further) or " + WidthNone + " (the paper's distances)"},
	{Name: "ranking_group", Flag: "ranking-group", Label: "Ranking group", Default: fmt.Sprintf("%d (%d with the completion loss)", DefaultRankingGroup, DefaultCompletionGroup),
		Help: "pairs per group of the ranking loss: one with another term of the document, the rest with terms outside it; with the completion loss, the candidates of a group (the held-out term and terms outside its document)"},
	{Name: "ranking_temperature", Flag: "ranking-temperature", Label: "Ranking temperature", Default: temperatureDefault(),
		Help: "temperature T of the ranking loss's softmax over −E²/T (squared CE distances) and of the completion loss's over −d/T (CE distances)"},
	{Name: "ranking_anchors", Flag: "ranking-anchors", Label: "Ranking anchors", Default: fmt.Sprintf("1 (%d with the completion loss)", DefaultCompletionAnchors),
		Help: "the set form of the ranking loss when 2 or more: a held-out term of a document and terms outside it, each scored by its nearest of this many other terms of the document, in the context without the held-out term; with the completion loss, the most anchors a group holds"},
	{Name: "learning_rate2", Flag: "learning-rate2", Label: "Learning rate, stage 2", Default: fmt.Sprintf("the learning rate (%g with the completion loss)", DefaultCompletionLearningRate2),
		Help: "initial SGD step of stage 2 and its pilots"},
	{Name: "term_dim", Flag: "term-dim", Label: "Term components", Default: fmt.Sprintf("every component up to %d terms, %d above", features.DefaultExactMaxTerms, features.DefaultRandomizedDim),
		Help: "principal components of the term features t(τ) kept as the network's term input"},
	{Name: "term_smooth", Flag: "term-smooth", Label: "Term smoothing α", Default: "none up to 1000 terms, 0.5 above",
		Help: "α of Mandel et al.'s smoothing of the training documents before Eq. 2 (each also holds its terms' strongest associates with weight α); negative = none"},
}

// ParamByName returns the documented parameter of that name; it panics on an
// unknown name (a programming error of a front end).
func ParamByName(name string) Param {
	for _, p := range Params {
		if p.Name == name {
			return p
		}
	}
	panic("ce: no documented training parameter " + name)
}

// FlagName returns the flag of `taglens train` for a ParamError's parameter
// name ('_' becomes '-').
func FlagName(param string) string { return strings.ReplaceAll(param, "_", "-") }

// Set sets the documented parameter name (a Params name) of c from its text,
// as a command-line flag or a form field gives it: an integer, a number, a
// word, comma-separated widths for hidden, and for max_time a duration
// ("90s", "2m") or a number of seconds. It checks the syntax only, and
// returns a *ParamError naming the parameter; Validate checks the ranges.
func (c *Config) Set(name, text string) error {
	f, ok := paramField(c, name)
	if !ok {
		return &ParamError{Param: name, Reason: "not a training parameter"}
	}
	text = strings.TrimSpace(text)
	bad := func(want string) error {
		return &ParamError{Param: name, Reason: fmt.Sprintf("%q: %s", text, want)}
	}
	switch p := f.Addr().Interface().(type) {
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return bad("not an integer")
		}
		*p = n
	case *float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad("not a number")
		}
		*p = x
	case *string:
		*p = text
	case *[]int:
		var ws []int
		for _, s := range strings.Split(text, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return bad("want comma-separated layer widths")
			}
			ws = append(ws, n)
		}
		*p = ws
	case *time.Duration:
		if x, err := strconv.ParseFloat(text, 64); err == nil {
			if !(x >= 0 && x <= MaxTrainTime.Seconds()) {
				return bad(fmt.Sprintf("seconds must be in 0..%v", MaxTrainTime.Seconds()))
			}
			*p = time.Duration(x * float64(time.Second))
			return nil
		}
		d, err := time.ParseDuration(text)
		if err != nil {
			return bad("not a duration (90s, 2m, 1h30m) or a number of seconds")
		}
		*p = d
	default:
		panic(fmt.Sprintf("ce: parameter %s has a field of type %T", name, p))
	}
	return nil
}

// paramField is the field of c whose `param` tag is name.
func paramField(c *Config, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(c).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		if f.Tag.Get("param") == name {
			return v.FieldByIndex(f.Index), true
		}
	}
	return reflect.Value{}, false
}

// temperatureDefault is the default of --ranking-temperature as the help
// prints it: one value when both losses share it.
func temperatureDefault() string {
	if DefaultCompletionTemperature == DefaultRankingTemperature {
		return fmt.Sprintf("%g", DefaultRankingTemperature)
	}
	return fmt.Sprintf("%g (%g with the completion loss)", DefaultRankingTemperature, DefaultCompletionTemperature)
}
