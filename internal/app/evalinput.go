package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/eval"
)

// DefaultTrials is the number of trials of an evaluation when none is given.
const DefaultTrials = 3

// DefaultSubset is the evaluated subset when none is given.
const DefaultSubset = "test"

// subsets are the evaluated documents a subset names: a part of the models'
// split, or every document of the corpus.
var subsets = []string{"train", "valid", "test", "oov", "all"}

// EvalInput is an evaluation as a user asks for it, before defaults: the
// flags of taglens eval or the body of POST /api/evaluations, which only
// translate into it. Normalize checks it and returns the EvalSpec an
// Evaluation is built from: the one check of an evaluation's input. Its
// refusals are *InputErrors whose Field is the API's name of the input
// (model_ids, seed_trials, subset, protocol, setting, missing, trials,
// sample, baselines, variants; corpus_id for the evaluated corpus).
type EvalInput struct {
	Models int // models chosen (files or ids), at least 1
	// SeedTrials: trial i uses model i (one training with several seeds):
	// at least two models, and as many trials.
	SeedTrials bool
	Subset     string // train, valid, test, oov or all (any case); DefaultSubset when empty
	Protocol   string // priming, extended or completion (eval.ParseProtocol); priming when empty
	Setting    string // within-corpus (when empty), cross-corpora, incomplete-context or oov
	Missing    string // the band of incomplete-context (eval.ParseBand): 10, 10-30 or 30-50
	// Trials is the number of trials: nil is DefaultTrials, or Models with
	// SeedTrials; given, it must be at least 1 (0 is not "the default").
	Trials *int
	// Baselines are names of baselines.Names, or "all" alone, or "none" alone.
	Baselines []string
	// Variants are the models' variants to evaluate: those of the setting
	// (ce, siamese-ce, or the four OOV models in the OOV setting); none given
	// is all of them, "none" alone is none.
	Variants []string
	// Lenient sets aside what no longer applies instead of refusing it (the
	// web app: its compare form keeps every field when the setting changes):
	// the subset given with another corpus becomes all (EvalSpec.CheckCorpus)
	// and baselines named in the OOV setting are left out of the report with
	// a note (compare.Plan.AddBaselines). The command line refuses both.
	Lenient bool
	// MaxModels and MaxTrials, when positive, cap Models and Trials (the web
	// app's caps).
	MaxModels, MaxTrials int
	// Sample, when positive, evaluates a seeded random sample of at most this
	// many of the evaluated documents in each trial (Evaluation.Sample); 0
	// samples only above DefaultRankBudget, AllDocs evaluates them all.
	Sample int
}

// EvalSpec is a checked evaluation input: the fields of an Evaluation the
// user chooses, defaults set.
type EvalSpec struct {
	Subset    string
	Protocol  eval.Protocol
	Setting   eval.Setting
	Missing   eval.Band // zero outside incomplete-context
	Trials    int
	Baselines []string // in report order, without repeats
	// AllBaselines says Baselines are every baseline ("all") rather than
	// named one by one (baselines.Scope.All).
	AllBaselines bool
	Variants     []ce.Variant // in report order (compare.VariantEntries)
	Sample       int          // documents sampled in each trial; 0: by DefaultRankBudget, AllDocs: all
	lenient      bool
}

// Normalize checks in and returns its EvalSpec, or an *InputError naming the
// first field that is wrong.
func (in EvalInput) Normalize() (*EvalSpec, error) {
	bad := func(field, format string, a ...any) (*EvalSpec, error) {
		return nil, &InputError{Field: field, Reason: fmt.Sprintf(format, a...)}
	}
	if in.Models < 1 {
		return bad("model_ids", "choose at least one trained model")
	}
	if in.MaxModels > 0 && in.Models > in.MaxModels {
		return bad("model_ids", "at most %d models", in.MaxModels)
	}
	s := &EvalSpec{Subset: strings.ToLower(strings.TrimSpace(in.Subset)), lenient: in.Lenient}
	if s.Subset == "" {
		s.Subset = DefaultSubset
	}
	if !slices.Contains(subsets, s.Subset) {
		return bad("subset", "must be train, valid, test, oov or all, got %q", in.Subset)
	}
	protocol := in.Protocol
	if strings.TrimSpace(protocol) == "" {
		protocol = string(eval.Priming)
	}
	var err error
	if s.Protocol, err = eval.ParseProtocol(protocol); err != nil {
		return bad("protocol", "%v", err)
	}
	if s.Setting = eval.Setting(in.Setting); s.Setting == "" {
		s.Setting = eval.WithinCorpus
	}
	switch s.Setting {
	case eval.WithinCorpus, eval.CrossCorpora, eval.IncompleteContext:
	case eval.OOVSetting:
		if s.Protocol != eval.Priming {
			return bad("protocol", "the OOV setting uses the priming protocol only (paper §6.2.4)")
		}
	default:
		return bad("setting", "must be within-corpus, cross-corpora, incomplete-context or oov, got %q", in.Setting)
	}
	if s.Protocol == eval.Completion && s.Setting == eval.IncompleteContext {
		return bad("protocol", "completion holds out one term at a time and has no missing band: use the within-corpus setting")
	}
	if s.Setting != eval.IncompleteContext && strings.TrimSpace(in.Missing) != "" {
		return bad("missing", "must be empty outside the incomplete-context setting (the %s setting has no band)", s.Setting)
	}
	if s.Setting == eval.IncompleteContext {
		if s.Missing, err = eval.ParseBand(in.Missing); err != nil {
			return bad("missing", "%v", err)
		}
		if s.Missing.IsZero() {
			return bad("missing", "the incomplete-context setting needs a band such as 10-30")
		}
	}
	if s.Trials, err = in.trials(); err != nil {
		return nil, err
	}
	if in.Sample < AllDocs {
		return bad("sample", "must be a number of documents, 0 for the default (a sample only above %.0e documents × vocabulary terms) or %d for all of them, got %d", float64(DefaultRankBudget), AllDocs, in.Sample)
	}
	s.Sample = in.Sample
	if s.Baselines, err = chooseBaselines(in.Baselines); err != nil {
		return nil, err
	}
	s.AllBaselines = len(in.Baselines) == 1 && in.Baselines[0] == "all"
	if s.Variants, err = chooseVariants(in.Variants, s.Setting); err != nil {
		return nil, err
	}
	if s.Setting == eval.OOVSetting && len(s.Baselines) > 0 && !in.Lenient {
		return bad("baselines", "none handles OOV terms: the paper evaluates only the OOV variants (§6.2.4)")
	}
	if len(s.Baselines) == 0 && len(s.Variants) == 0 {
		return bad("variants", "nothing to evaluate: no variant and no baseline")
	}
	return s, nil
}

// trials returns the number of trials of in.
func (in EvalInput) trials() (int, error) {
	n := DefaultTrials
	if in.SeedTrials {
		if in.Models < 2 {
			return 0, &InputError{Field: "seed_trials", Reason: "choose at least two models (one per seed)"}
		}
		if in.Trials != nil && *in.Trials != in.Models {
			return 0, &InputError{Field: "trials", Reason: fmt.Sprintf("must be %d, the number of models (one per trial), or be omitted", in.Models)}
		}
		n = in.Models
	} else if in.Trials != nil {
		n = *in.Trials
	}
	if n < 1 || (in.MaxTrials > 0 && n > in.MaxTrials) {
		want := "at least 1"
		if in.MaxTrials > 0 {
			want = fmt.Sprintf("in 1..%d", in.MaxTrials)
		}
		return 0, &InputError{Field: "trials", Reason: fmt.Sprintf("must be %s (omit it for the default, %d), got %d", want, DefaultTrials, n)}
	}
	return n, nil
}

// chooseBaselines returns the baselines names asks for, in report order
// without repeats.
func chooseBaselines(names []string) ([]string, error) {
	switch {
	case len(names) == 1 && names[0] == "all":
		return slices.Clone(baselines.Names), nil
	case len(names) == 1 && names[0] == "none":
		return nil, nil
	}
	var out []string
	for _, b := range names {
		if !slices.Contains(baselines.Names, b) {
			return nil, &InputError{Field: "baselines",
				Reason: fmt.Sprintf("unknown baseline %q (want %s or all)", b, strings.Join(baselines.Names, ", "))}
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(baselines.Names, a) - slices.Index(baselines.Names, b) })
	return out, nil
}

// chooseVariants returns the variants names asks for in setting
// (ce.ParseVariant, or ce.ParseOOVVariant in the OOV setting): the setting's
// own when names is empty, none for "none" alone.
func chooseVariants(names []string, setting eval.Setting) ([]ce.Variant, error) {
	oov := setting == eval.OOVSetting
	switch {
	case len(names) == 0 && oov:
		return slices.Clone(ce.OOVVariants), nil
	case len(names) == 0:
		return slices.Clone(ce.Variants), nil
	case len(names) == 1 && names[0] == "none":
		return nil, nil
	}
	parse := ce.ParseVariant
	if oov {
		parse = ce.ParseOOVVariant
	}
	out := make([]ce.Variant, len(names))
	for i, name := range names {
		v, err := parse(name)
		if strings.TrimSpace(name) == "" {
			err = errors.New("a variant's name is empty")
		}
		if err != nil {
			return nil, &InputError{Field: "variants", Reason: fmt.Sprintf("%v in the %s setting", err, setting)}
		}
		out[i] = v
	}
	return out, nil
}

// CheckCorpus checks the setting of s against the evaluated corpus, other
// when it is another corpus than the models': the cross-corpora setting needs
// another corpus, within-corpus and incomplete-context the models' own.
// Another corpus has no split of the models and is evaluated whole: its
// subset is all (or oov, which names the OOV setting on the command line); a
// Lenient input's subset becomes all, another subset is refused.
func (s *EvalSpec) CheckCorpus(other bool) error {
	switch s.Setting {
	case eval.CrossCorpora:
		if !other {
			return &InputError{Field: "corpus_id", Reason: "the cross-corpora setting evaluates another corpus than the models'"}
		}
	case eval.WithinCorpus, eval.IncompleteContext:
		if other {
			return &InputError{Field: "corpus_id",
				Reason: fmt.Sprintf("the %s setting evaluates the models' own corpus; use cross-corpora (or oov) for another corpus", s.Setting)}
		}
	}
	switch {
	case !other:
	case s.lenient:
		s.Subset = "all"
	case s.Subset != "all" && s.Subset != "oov":
		return &InputError{Field: "subset", Reason: "must be all (cross-corpora) or oov (real OOV) for another corpus"}
	}
	return nil
}
