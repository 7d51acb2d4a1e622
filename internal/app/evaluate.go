package app

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/compare"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

// DefaultConcurrent is the number of models an Evaluation runs at once by
// default: two fill two processors where one model's training leaves one idle
// (LDA's and PLSA's fits are serial), with the same report.
const DefaultConcurrent = 2

// DefaultRankBudget bounds one trial's ranking work when Evaluation.Sample
// is 0: the evaluated documents times the vocabulary's terms (the extended
// protocol ranks the whole vocabulary once per document). Where the subset
// is larger, each trial evaluates a seeded sample of ⌊DefaultRankBudget/V⌋
// of its documents and the report says so, with each trial's standard error
// of MAP over the sampled documents. 3×10^8 keeps every test subset of the
// development suite whole (the largest product, whats-cooking's 16,263
// documents × 6,700 terms, is 1.1×10^8) and samples 9,666 of pubmed-genes'
// 125,811 test documents over its 31,034 terms, whose every ranking took
// 12.6 times a 10,000-document sample's.
const DefaultRankBudget = 300_000_000

// AllDocs as Evaluation.Sample evaluates every document, whatever
// DefaultRankBudget says.
const AllDocs = -1

// Evaluation is a comparison of models in one setting: the requested
// baselines, retrained in every trial on the training documents of the
// models' split, then the models' variants, on the evaluated documents.
type Evaluation struct {
	// Models are the evaluated models, which share a vocabulary outside the
	// OOV setting; the first gives the vocabulary and the baselines' sizes, and
	// trial t's documents come from the split of model min(t, len-1).
	Models []*ce.Model
	Corpus *corpus.Corpus // the models' training corpus
	Cross  *corpus.Corpus // another evaluated corpus (cross-corpora, real OOV), or nil
	Subset string         // train, valid, test, oov or all
	// Protocol, Setting and Missing (the band of the incomplete-context
	// setting, zero otherwise) describe the evaluation.
	Protocol eval.Protocol
	Setting  eval.Setting
	Missing  eval.Band
	Trials   int
	Seed     uint64 // seed of trial 0; trial t has Seed+t
	// Sample, when positive, evaluates in trial t a random sample of at most
	// Sample of the evaluated documents drawn with seed Seed+t, so that the
	// trials' standard errors include the sample's variation (a large
	// subset's comparison in bounded time); 0 does so with the size
	// DefaultRankBudget gives where the documents exceed it, and AllDocs
	// evaluates every document.
	Sample  int
	Workers int // goroutines evaluating documents (compare.Plan.Workers)
	// Concurrent is the number of models evaluated at once
	// (compare.Plan.Concurrent; 0 means DefaultConcurrent).
	Concurrent int
	// Baselines are the baselines' names in report order; those the setting
	// does not apply to are left out with a note.
	Baselines []string
	// AllBaselines says Baselines are every baseline ("all"): GloVe is then
	// left out where its grid outgrows a comparison (baselines.MaxGloVeSteps).
	AllBaselines bool
	// Variants are the models' entries (compare.VariantEntries), after the
	// baselines in the report.
	Variants []compare.Entry
	// Split returns the split model m was trained with.
	Split func(m *ce.Model) (corpus.Split, error)
	// SplitPerModel asks Split again for each trial whose model is not the
	// first; otherwise every trial uses the first model's split.
	SplitPerModel bool
	// CheckTrainDocs adds a note when the first trial's split does not have
	// as many training documents as its model was trained on.
	CheckTrainDocs bool
	// AllWithoutOOV: the subset oov of a split with no OOV document is every
	// document of the corpus (compare.SelectDocs).
	AllWithoutOOV bool
	// Notes are the caller's notes, first in the report.
	Notes []string
	// Note, when not nil, receives each note of the run as it is made.
	Note func(string)
	// Docs, when not nil, receives the number of evaluated documents of a
	// trial whose documents were selected and compare.EncodeDocs's note (""
	// when it has none).
	Docs func(trial, docs int, note string)
	// Progress, when not nil, receives the comparison's events.
	Progress func(compare.Event)
}

// ErrNoEntries is the error of an evaluation with no baseline and no variant
// left to evaluate.
var ErrNoEntries = errors.New("no model left to evaluate")

// NoDocsError is the error of an evaluation with no document to evaluate.
type NoDocsError struct {
	Subset  string
	Checked int // documents selected before encoding
}

func (e *NoDocsError) Error() string { return "no document to evaluate in " + e.Subset }

// NoQueriesError is the error of an evaluation whose documents gave no
// model a single ranked list to score (every document skipped: too short
// for the missing-rate band, or without two in-vocabulary terms): its
// figures would be zeros and its "best" model meaningless.
type NoQueriesError struct {
	Docs, Skipped int       // evaluated and skipped documents of the first trial
	Missing       eval.Band // the incomplete-context band, if any
}

func (e *NoQueriesError) Error() string {
	msg := fmt.Sprintf("no usable query: all %d documents were skipped", e.Docs+e.Skipped)
	if !e.Missing.IsZero() {
		msg += fmt.Sprintf(" (in the band %s%%, a document counts only when removing at least one of its terms, and at most %d%% of them, leaves at least one: these are too short)", e.Missing, e.Missing.Hi)
	}
	return msg + "; no model was evaluated"
}

// Evaluate runs the evaluation ev and returns its report: corpora, setting,
// notes (the caller's, the baselines left out and a mismatch of the split and
// the model, then compare.Run's) and results. It stops with ctx's error when
// ctx is cancelled; the errors of compare.Run are returned unwrapped.
func Evaluate(ctx context.Context, ev *Evaluation) (*eval.Report, error) {
	first := ev.Models[0]
	vocab := first.Vocabulary()
	rep := &eval.Report{Corpus: ev.Corpus.Name, Subset: ev.Subset, Protocol: string(ev.Protocol), Trials: ev.Trials,
		Setting: ev.Setting, Missing: ev.Missing.String(), Interpolation: eval.Interpolation}
	if ev.Cross != nil {
		rep.EvalCorpus = ev.Cross.Name
	}
	notes := slices.Clone(ev.Notes)
	note := func(s string) {
		notes = append(notes, s)
		if ev.Note != nil {
			ev.Note(s)
		}
	}
	conc := ev.Concurrent
	if conc <= 0 {
		conc = DefaultConcurrent
	}
	plan := &compare.Plan{Protocol: ev.Protocol, Missing: ev.Missing, Workers: ev.Workers, Concurrent: conc,
		VocabSize: vocab.Len(), Trials: ev.Trials,
		Baseline: baselines.Settings{Topics: first.Topics().NumTopics(), Hidden: first.CEDim()}}
	scope := baselines.Scope{Protocol: ev.Protocol, Subset: ev.Subset, Cross: ev.Cross != nil, Terms: vocab.Len(),
		OOV: ev.Setting == eval.OOVSetting, Missing: ev.Missing, All: ev.AllBaselines}
	// GloVe's steps are counted only where nothing else leaves it out.
	if ev.AllBaselines && slices.Contains(ev.Baselines, baselines.NameGloVe) && baselines.Skip(baselines.NameGloVe, scope) == "" {
		var err error
		if scope.GloVeSteps, err = ev.gloveSteps(baselines.MaxGloVeSteps); err != nil {
			return nil, err
		}
	}
	for _, why := range plan.AddBaselines(ev.Baselines, scope) {
		note(why)
	}
	var own []string
	for _, e := range plan.Entries {
		if slices.Contains(baselines.OwnScore, e.Baseline) {
			own = append(own, e.Baseline)
		}
	}
	if len(own) > 0 {
		note(strings.Join(own, ", ") + " rank a document's vocabulary by their own score (a sum of similarities over the document's other terms, as recommenders do), not by Eq. 9's minimum distance")
	}
	sampleNote := func(k int, auto bool) {
		why := ""
		if auto {
			why = fmt.Sprintf(" (by default above %.0e documents × vocabulary terms a trial: %d terms; a sample of -1 evaluates them all)", float64(DefaultRankBudget), vocab.Len())
		}
		note(fmt.Sprintf("each trial evaluates a random sample of at most %d of the evaluated documents%s (trial t's drawn with seed %d+t): the standard errors over the trials include the sample's variation, and each trial's map_doc_se is its MAP's standard error over its sampled documents", k, why, ev.Seed))
	}
	if ev.Sample > 0 {
		sampleNote(ev.Sample, false)
	}
	autoNoted := false
	if ev.Protocol == eval.Completion {
		note("completion (taglens's protocol, not the paper's): each term of a document in turn is held out of its context and ranked among the terms outside the context; one relevant term per list, so MAP is the hit rate at 1 and AUC the mean reciprocal rank")
	}
	plan.Entries = append(plan.Entries, ev.Variants...)
	if len(plan.Entries) == 0 {
		return nil, ErrNoEntries
	}
	var data *compare.Trial
	plan.Trial = func(t int) (*compare.Trial, error) {
		mi := min(t, len(ev.Models)-1)
		if data == nil || (ev.SplitPerModel && mi > 0) {
			var err error
			if data, err = ev.trialDocs(ev.Models[mi], t, note); err != nil {
				return nil, err
			}
		}
		d := *data
		d.Seed = ev.Seed + uint64(t)
		if k, auto := ev.sampleSize(max(len(d.Docs), len(d.OOVDocs)), vocab.Len()); k > 0 {
			if auto && !autoNoted {
				sampleNote(k, true)
				autoNoted = true
			}
			d.Docs = sampleOf(d.Docs, k, d.Seed)
			d.OOVDocs = sampleOf(d.OOVDocs, k, d.Seed)
		}
		return &d, nil
	}
	plan.Progress = ev.Progress
	if err := compare.Run(ctx, plan, rep); err != nil {
		return nil, err
	}
	if err := noQueries(rep, ev.Missing); err != nil {
		return nil, err
	}
	// The notes of the run come before those of the p-values that Run added.
	rep.Notes = append(notes, rep.Notes...)
	return rep, nil
}

// noQueries returns a *NoQueriesError when no model of rep scored a single
// query in any trial, nil otherwise.
func noQueries(rep *eval.Report, band eval.Band) error {
	if len(rep.Models) == 0 {
		return nil
	}
	for _, m := range rep.Models {
		if m.Queries > 0 {
			return nil
		}
		for _, t := range m.PerTrial {
			if t.Queries > 0 {
				return nil
			}
		}
	}
	m := rep.Models[0]
	return &NoQueriesError{Docs: m.Docs, Skipped: m.Skipped, Missing: band}
}

// gloveSteps returns baselines.GloVeSteps on the first trial's training
// documents (those trialDocs gives the baselines, without its notes).
func (ev *Evaluation) gloveSteps(limit int64) (int64, error) {
	_, train, _, err := ev.baselineTrain(ev.Models[0])
	if err != nil {
		return 0, err
	}
	return baselines.GloVeSteps(train, ev.Models[0].Vocabulary().Len(), limit)
}

// baselineTrain returns model m's split and the baselines' training
// documents, encoded: the documents of the split that m trained on, with how
// many m left out as too long (ce.Info.TrainingDocs).
func (ev *Evaluation) baselineTrain(m *ce.Model) (split corpus.Split, train [][]int, long int, err error) {
	if split, err = ev.Split(m); err != nil {
		return corpus.Split{}, nil, 0, err
	}
	idx, long := m.Info().TrainingDocs(ev.Corpus, split.Train)
	return split, ev.Models[0].Vocabulary().EncodeAll(ev.Corpus.Select(idx)), long, nil
}

// trialDocs selects and encodes the documents of trial t, whose model is m:
// the training documents of m's split (for the baselines) and the evaluated
// documents.
func (ev *Evaluation) trialDocs(m *ce.Model, t int, note func(string)) (*compare.Trial, error) {
	vocab := ev.Models[0].Vocabulary()
	split, train, long, err := ev.baselineTrain(m)
	if err != nil {
		return nil, err
	}
	if long > 0 && t == 0 {
		note(fmt.Sprintf("%d training documents of more than %d tags left out of the baselines' training, as the model's training left them out (design.md, decision 1)", long, m.Info().MaxDocTags))
	}
	d := &compare.Trial{Train: train, Valid: vocab.EncodeAll(ev.Corpus.Select(split.Valid))}
	if n := m.Info().TrainDocs; ev.CheckTrainDocs && n > 0 && n != len(train) && t == 0 {
		note(fmt.Sprintf("the split has %d training documents, the model was trained on %d: is it the model's split?", len(train), n))
	}
	src := compare.SelectDocs(ev.Corpus, ev.Cross, split, ev.Subset, ev.AllWithoutOOV)
	name := ev.Corpus.Name
	if ev.Cross != nil {
		name = ev.Cross.Name
	}
	var docNote string
	d.Docs, d.OOVDocs, docNote = compare.EncodeDocs(vocab, src, ev.Setting, name)
	if ev.Docs != nil {
		ev.Docs(t, max(len(d.Docs), len(d.OOVDocs)), docNote)
	}
	if len(d.Docs) == 0 && len(d.OOVDocs) == 0 {
		return nil, &NoDocsError{Subset: ev.Subset, Checked: len(src)}
	}
	return d, nil
}

// ModelEntries returns the report entries of the variants of models ms, named
// names (the OOV models in the OOV setting, oov): with seedTrials one entry
// per variant whose trial t is ms[t] (compare.VariantEntries), otherwise one
// per model and variant, named after the model when there are several. A
// contextual variant's tuning records its model's name and training seed.
func ModelEntries(variants []ce.Variant, oov bool, ms []*ce.Model, names []string, seedTrials bool) []compare.Entry {
	tuning := func(names []string, ms []*ce.Model) func(i int) map[string]any {
		if oov {
			return nil
		}
		return func(i int) map[string]any {
			return map[string]any{"model": names[i], "train_seed": ms[i].Info().Seed}
		}
	}
	if seedTrials {
		return compare.VariantEntries(variants, oov, ms, tuning(names, ms), "")
	}
	var entries []compare.Entry
	for i := range ms {
		suffix := ""
		if len(ms) > 1 {
			suffix = " (" + names[i] + ")"
		}
		one := i + 1
		entries = append(entries, compare.VariantEntries(variants, oov, ms[i:one], tuning(names[i:one], ms[i:one]), suffix)...)
	}
	return entries
}

// sampleSize returns the number of documents each trial samples among docs
// evaluated documents over a vocabulary of v terms (0: all of them), and
// whether DefaultRankBudget chose it.
func (ev *Evaluation) sampleSize(docs, v int) (k int, auto bool) {
	switch {
	case ev.Sample > 0:
		return ev.Sample, false
	case ev.Sample < 0:
		return 0, false
	}
	k = max(1, DefaultRankBudget/max(v, 1))
	if docs <= k {
		return 0, false
	}
	return k, true
}

// sampleStream tells sampleOf's random stream from the trials' other streams
// of the same seed.
const sampleStream = 0x73616d706c65 // "sample"

// sampleOf returns a random sample of k of xs drawn with seed, in the order of
// xs, or xs itself when it has at most k elements.
func sampleOf[T any](xs []T, k int, seed uint64) []T {
	if len(xs) <= k {
		return xs
	}
	idx := rand.New(rand.NewPCG(seed, sampleStream)).Perm(len(xs))[:k]
	slices.Sort(idx)
	out := make([]T, k)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}
