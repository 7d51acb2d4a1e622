package server

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/eval"
)

// BaselineNames are the eight baselines of the paper's §6.2.5 in report order
// (the same names and order as `taglens eval --baselines`).
var BaselineNames = []string{"random", "lsa", "pca", "infotheo", "skipgram", "lda", "plsa", "crbm"}

// NonContextualBaselines are the baselines the paper evaluates with the
// extended protocol only (§6.2.5).
var NonContextualBaselines = []string{"lsa", "pca", "infotheo", "skipgram"}

// OOVVariants are the four OOV models of §4.4 evaluated in the OOV setting (§6.2.4).
var OOVVariants = []string{"ce-feature", "siamese-ce-feature", "ce-avg", "siamese-ce-avg"}

// BaselineScope says what an evaluation asks of a baseline.
type BaselineScope struct {
	Protocol eval.Protocol
	Subset   string    // train, valid, test, oov or all
	Cross    bool      // the evaluated documents come from another corpus
	OOV      bool      // the OOV setting
	Missing  eval.Band // incomplete local context; zero when complete
}

// BaselineSkip returns why baseline name is left out of an evaluation with the
// given scope (a sentence for the report's notes), or "" when it is evaluated.
// The rules are those of `taglens eval`: baselines handle no OOV term (§6.2.4);
// non-contextual ones only take the extended protocol (§6.2.5); CRBM's context
// is the training document's one-hot condition, so it is evaluated on training
// documents only and never with an incomplete context (§6.2.5, §6.5).
func BaselineSkip(name string, sc BaselineScope) string {
	switch {
	case sc.OOV:
		return name + " skipped: baselines do not handle OOV terms; the paper evaluates only the OOV variants (§6.2.4)"
	case sc.Protocol == eval.Priming && slices.Contains(NonContextualBaselines, name):
		return name + " skipped: not contextual, evaluated with the extended protocol only (paper §6.2.5)"
	case name == "crbm" && (sc.Subset != "train" || sc.Cross):
		return "crbm skipped: its context is the training document's one-hot condition, so it is evaluated on training documents only (paper §6.2.5)"
	case name == "crbm" && !sc.Missing.IsZero():
		return "crbm skipped: its context, the document's one-hot condition, cannot be made incomplete (paper §6.5)"
	}
	return ""
}

// TrainBaseline trains baseline name on the training documents train (term
// indices of m's vocabulary of v terms) with seed, as `taglens eval` does: LDA
// and PLSA take the topic count of m's local context, CRBM m's CE dimension as
// its hidden size (§6.2.5). It returns the model and how it was tuned (the
// baseline's own tuning record, if any, plus the seed). progress, if not nil,
// receives InfoTheo's and Skip-gram's grid steps as sentences.
func TrainBaseline(ctx context.Context, name string, train [][]int, v int, m *ce.Model, seed uint64, progress func(string)) (eval.Model, map[string]any, error) {
	say := func(format string, a ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, a...))
		}
	}
	var (
		bm  eval.Model
		err error
	)
	switch name {
	case "random":
		bm = baselines.NewRandom(v)
	case "lsa":
		bm, err = baselines.FitLSA(train, v, &baselines.LSAOptions{Seed: seed})
	case "pca":
		bm, err = baselines.FitPCA(train, v, &baselines.GlobalOptions{Seed: seed})
	case "infotheo":
		bm, err = baselines.FitInfoTheo(ctx, train, v, &baselines.InfoTheoOptions{Seed: seed,
			Progress: func(k int, alpha, p2 float64) { say("infotheo: k=%d α=%.1f training P@2 %.4f", k, alpha, p2) }})
	case "skipgram":
		bm, err = baselines.FitSkipGram(ctx, train, v, &baselines.SkipGramOptions{Seed: seed,
			Progress: func(window int, p2 float64) { say("skipgram: window %d training P@2 %.4f", window, p2) }})
	case "lda":
		bm, err = baselines.TrainLDA(ctx, train, v, m.Topics().NumTopics(), seed, nil)
	case "plsa":
		bm, err = baselines.TrainPLSA(ctx, train, v, m.Topics().NumTopics(), seed, nil)
	case "crbm":
		bm, err = baselines.TrainCRBM(ctx, train, v, baselines.CRBMConfig{Hidden: m.CEDim()}, seed, nil)
	default:
		return nil, nil, fmt.Errorf("unknown baseline %q", name)
	}
	if err != nil {
		return nil, nil, err
	}
	var tun map[string]any
	if tm, ok := bm.(eval.Tuned); ok {
		tun = maps.Clone(tm.Tuning())
	}
	if tun == nil {
		tun = map[string]any{}
	}
	tun["seed"] = seed
	return bm, tun, nil
}
