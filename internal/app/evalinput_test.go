package app

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/eval"
)

func intp(n int) *int { return &n }

// TestEvalInputDefaults: an input with one model and nothing else is the
// priming protocol on the test documents, within the corpus, DefaultTrials
// trials, no baseline and both networks.
func TestEvalInputDefaults(t *testing.T) {
	s, err := EvalInput{Models: 1}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if s.Subset != "test" || s.Protocol != eval.Priming || s.Setting != eval.WithinCorpus || !s.Missing.IsZero() ||
		s.Trials != DefaultTrials || s.Baselines != nil || !slices.Equal(s.Variants, []ce.Variant{ce.VariantCE, ce.VariantSiamese}) {
		t.Errorf("defaults %+v", s)
	}
}

// TestEvalInputAccepted: what the command line and the web app ask for, and
// what it becomes.
func TestEvalInputAccepted(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    EvalInput
		check func(*EvalSpec) bool
	}{
		{"subset in any case", EvalInput{Models: 1, Subset: " Valid "}, func(s *EvalSpec) bool { return s.Subset == "valid" }},
		{"protocol in any case", EvalInput{Models: 1, Protocol: "Extended"}, func(s *EvalSpec) bool { return s.Protocol == eval.Extended }},
		{"baselines all, in report order", EvalInput{Models: 1, Baselines: []string{"all"}},
			func(s *EvalSpec) bool { return slices.Equal(s.Baselines, baselines.Names) && s.AllBaselines }},
		{"baselines in report order without repeats", EvalInput{Models: 1, Baselines: []string{"lda", "random", "lda"}},
			func(s *EvalSpec) bool { return slices.Equal(s.Baselines, []string{"random", "lda"}) && !s.AllBaselines }},
		{"every baseline named: not all", EvalInput{Models: 1, Baselines: baselines.Names},
			func(s *EvalSpec) bool { return slices.Equal(s.Baselines, baselines.Names) && !s.AllBaselines }},
		{"baselines none", EvalInput{Models: 1, Baselines: []string{"none"}}, func(s *EvalSpec) bool { return s.Baselines == nil }},
		{"variants none with a baseline", EvalInput{Models: 1, Variants: []string{"none"}, Baselines: []string{"random"}},
			func(s *EvalSpec) bool { return s.Variants == nil && len(s.Baselines) == 1 }},
		{"one variant", EvalInput{Models: 1, Variants: []string{"siamese-ce"}},
			func(s *EvalSpec) bool { return slices.Equal(s.Variants, []ce.Variant{ce.VariantSiamese}) }},
		{"the OOV setting's variants", EvalInput{Models: 1, Subset: "oov", Setting: "oov"},
			func(s *EvalSpec) bool { return slices.Equal(s.Variants, ce.OOVVariants) && s.Protocol == eval.Priming }},
		{"an OOV variant", EvalInput{Models: 1, Setting: "oov", Variants: []string{"ce-avg"}},
			func(s *EvalSpec) bool { return slices.Equal(s.Variants, []ce.Variant{ce.VariantCEAvg}) }},
		{"lenient: baselines kept in the OOV setting (noted by the run)", EvalInput{Models: 1, Setting: "oov", Baselines: []string{"random"}, Lenient: true},
			func(s *EvalSpec) bool { return slices.Equal(s.Baselines, []string{"random"}) }},
		{"incomplete context", EvalInput{Models: 1, Setting: "incomplete-context", Missing: "10-30"},
			func(s *EvalSpec) bool { return s.Missing == eval.Band10to30 }},
		{"trials given", EvalInput{Models: 1, Trials: intp(20)}, func(s *EvalSpec) bool { return s.Trials == 20 }},
		{"seed trials: one per model", EvalInput{Models: 3, SeedTrials: true}, func(s *EvalSpec) bool { return s.Trials == 3 }},
		{"seed trials: as many given", EvalInput{Models: 2, SeedTrials: true, Trials: intp(2)}, func(s *EvalSpec) bool { return s.Trials == 2 }},
		{"several models, every one in every trial", EvalInput{Models: 3, Trials: intp(5), MaxModels: 8, MaxTrials: 10},
			func(s *EvalSpec) bool { return s.Trials == 5 }},
	} {
		s, err := tt.in.Normalize()
		if err != nil || !tt.check(s) {
			t.Errorf("%s: %+v, %v", tt.name, s, err)
		}
	}
}

// TestEvalInputRefused: every refusal of Normalize is an *InputError naming
// its field, with the message both sides show.
func TestEvalInputRefused(t *testing.T) {
	web := func(in EvalInput) EvalInput { in.Lenient, in.MaxModels, in.MaxTrials = true, 8, 10; return in }
	for _, tt := range []struct {
		name  string
		in    EvalInput
		field string
		msg   string // a substring of the error
	}{
		{"no model", EvalInput{}, "model_ids", "model_ids: choose at least one trained model"},
		{"too many models", web(EvalInput{Models: 9}), "model_ids", "model_ids: at most 8 models"},
		{"unknown subset", EvalInput{Models: 1, Subset: "half"}, "subset", `subset must be train, valid, test, oov or all, got "half"`},
		{"unknown protocol", EvalInput{Models: 1, Protocol: "nope"}, "protocol", `unknown protocol "nope" (want priming, extended or completion)`},
		{"completion with a band", EvalInput{Models: 1, Protocol: "completion", Setting: "incomplete-context", Missing: "10-30"}, "protocol", "no missing band"},
		{"unknown setting", EvalInput{Models: 1, Setting: "sideways"}, "setting", "setting must be within-corpus, cross-corpora, incomplete-context or oov"},
		{"OOV with the extended protocol", EvalInput{Models: 1, Setting: "oov", Protocol: "extended"}, "protocol", "the OOV setting uses the priming protocol only"},
		{"a band outside incomplete-context", EvalInput{Models: 1, Missing: "10-30"}, "missing", "missing must be empty outside the incomplete-context setting"},
		{"a band in the OOV setting", EvalInput{Models: 1, Setting: "oov", Missing: "10"}, "missing", "the oov setting has no band"},
		{"a band not the paper's", EvalInput{Models: 1, Setting: "incomplete-context", Missing: "99"}, "missing",
			`missing: eval: missing-rate band "99" is not one of the paper's three: 10 (up to 10 %), 10-30 or 30-50`},
		{"incomplete-context without a band", EvalInput{Models: 1, Setting: "incomplete-context"}, "missing", "needs a band such as 10-30"},
		{"seed trials of one model", EvalInput{Models: 1, SeedTrials: true}, "seed_trials", "seed_trials: choose at least two models (one per seed)"},
		{"seed trials: other than one per model", EvalInput{Models: 2, SeedTrials: true, Trials: intp(3)}, "trials", "trials must be 2, the number of models"},
		{"a sample below -1", EvalInput{Models: 1, Sample: -2}, "sample", "sample must be a number of documents, 0 for the default (a sample only above 3e+08 documents × vocabulary terms) or -1 for all of them, got -2"},
		{"zero trials", EvalInput{Models: 1, Trials: intp(0)}, "trials", "trials must be at least 1 (omit it for the default, 3), got 0"},
		{"zero trials on the web", web(EvalInput{Models: 1, Trials: intp(0)}), "trials", "trials must be in 1..10 (omit it for the default, 3), got 0"},
		{"too many trials", web(EvalInput{Models: 1, Trials: intp(11)}), "trials", "trials must be in 1..10"},
		{"unknown baseline", EvalInput{Models: 1, Baselines: []string{"random", "magic"}}, "baselines", `unknown baseline "magic" (want random, lsa,`},
		{"all among others", EvalInput{Models: 1, Baselines: []string{"all", "random"}}, "baselines", `unknown baseline "all"`},
		{"unknown variant", EvalInput{Models: 1, Variants: []string{"lsa"}}, "variants", `unknown variant "lsa" (want siamese-ce or ce) in the within-corpus setting`},
		{"a network in the OOV setting", EvalInput{Models: 1, Setting: "oov", Variants: []string{"ce"}}, "variants",
			`unknown variant "ce" (want ce-feature, siamese-ce-feature, ce-avg or siamese-ce-avg) in the oov setting`},
		{"an OOV model outside it", EvalInput{Models: 1, Variants: []string{"ce-avg"}}, "variants", `unknown variant "ce-avg"`},
		{"baselines in the OOV setting", EvalInput{Models: 1, Setting: "oov", Baselines: []string{"random"}}, "baselines", "none handles OOV terms"},
		{"a blank variant", EvalInput{Models: 1, Variants: []string{"ce", " "}}, "variants", "a variant's name is empty"},
		{"nothing to evaluate", EvalInput{Models: 1, Variants: []string{"none"}}, "variants", "nothing to evaluate: no variant and no baseline"},
	} {
		s, err := tt.in.Normalize()
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != tt.field || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %+v, %v; want an InputError of %s saying %q", tt.name, s, err, tt.field, tt.msg)
		}
	}
}

// TestEvalSpecCheckCorpus: the setting against the evaluated corpus, and the
// subset of another corpus (all on the web, refused on the command line
// unless all or oov).
func TestEvalSpecCheckCorpus(t *testing.T) {
	check := func(in EvalInput, other bool) (*EvalSpec, error) {
		t.Helper()
		s, err := in.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		return s, s.CheckCorpus(other)
	}
	for _, tt := range []struct {
		name  string
		in    EvalInput
		other bool
		field string // "" for accepted
		msg   string
	}{
		{"cross-corpora on the models' corpus", EvalInput{Models: 1, Setting: "cross-corpora", Subset: "all"}, false, "corpus_id",
			"corpus_id: the cross-corpora setting evaluates another corpus than the models'"},
		{"within-corpus on another corpus", EvalInput{Models: 1, Lenient: true}, true, "corpus_id",
			"the within-corpus setting evaluates the models' own corpus; use cross-corpora"},
		{"incomplete-context on another corpus", EvalInput{Models: 1, Setting: "incomplete-context", Missing: "10"}, true, "corpus_id", "use cross-corpora"},
		{"command line: another corpus's test documents", EvalInput{Models: 1, Setting: "cross-corpora"}, true, "subset",
			"subset must be all (cross-corpora) or oov (real OOV) for another corpus"},
		{"command line: cross-corpora", EvalInput{Models: 1, Setting: "cross-corpora", Subset: "all"}, true, "", ""},
		{"command line: real OOV", EvalInput{Models: 1, Setting: "oov", Subset: "oov"}, true, "", ""},
		{"web: cross-corpora", EvalInput{Models: 1, Setting: "cross-corpora", Lenient: true}, true, "", ""},
		{"web: real OOV", EvalInput{Models: 1, Setting: "oov", Lenient: true}, true, "", ""},
		{"OOV within the corpus", EvalInput{Models: 1, Setting: "oov", Subset: "test"}, false, "", ""},
	} {
		s, err := check(tt.in, tt.other)
		var ie *InputError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.field != "" && (!errors.As(err, &ie) || ie.Field != tt.field || !strings.Contains(err.Error(), tt.msg)):
			t.Errorf("%s: %v; want an InputError of %s saying %q", tt.name, err, tt.field, tt.msg)
		case tt.field == "" && tt.other && tt.in.Lenient && s.Subset != "all":
			t.Errorf("%s: subset %q, want all", tt.name, s.Subset)
		}
	}
}

func TestInputErrorNamed(t *testing.T) {
	e := &InputError{Field: "trials", Reason: "must be at least 1"}
	if e.Error() != "trials must be at least 1" || e.Named("--trials") != "--trials must be at least 1" {
		t.Errorf("%q, %q", e.Error(), e.Named("--trials"))
	}
	e = &InputError{Field: "missing", Reason: "the band is wrong"}
	if e.Error() != "missing: the band is wrong" || e.Named("--missing") != "--missing: the band is wrong" {
		t.Errorf("%q, %q", e.Error(), e.Named("--missing"))
	}
}
