package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/compare"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

// demoModel trains a small model on the demo corpus with its split.
func demoModel(t *testing.T) (*ce.Model, *corpus.Corpus, corpus.Split) {
	t.Helper()
	if testing.Short() {
		t.Skip("trains a model")
	}
	c, _ := corpus.Demo(corpus.DemoSeed)
	split := corpus.DemoSplit(c)
	cfg := ce.Config{Seed: 1, Hidden: []int{24, 10}, MaxEpochs1: 3, MaxEpochs2: 2, Patience: 1, EpochExamples: 4000,
		PretrainIterations: -1, Alpha: 0.1, Lambda: 2, Topics: 8, SplitSeed: 1}
	m, err := Train(context.Background(), Training{Corpus: c, Reserved: corpus.DemoOOVTags, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return m, c, split
}

func TestEvaluate(t *testing.T) {
	m, c, split := demoModel(t)
	var notes []string
	var docs int
	ev := &Evaluation{Models: []*ce.Model{m}, Corpus: c, Subset: "test", Protocol: eval.Priming,
		Setting: eval.WithinCorpus, Trials: 2, Seed: 5, Baselines: []string{"random", "lsa"},
		Variants: compare.VariantEntries([]ce.Variant{ce.VariantCE}, false, []*ce.Model{m}, nil, ""),
		Split:    func(*ce.Model) (corpus.Split, error) { return split, nil },
		Notes:    []string{"caller"}, Note: func(s string) { notes = append(notes, s) },
		Docs: func(_, n int, _ string) { docs = n }}
	rep, err := Evaluate(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rep.Models {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"random", "ce"}) {
		t.Errorf("models %v: want random (lsa is not contextual) and ce", names)
	}
	if len(notes) != 1 || len(rep.Notes) < 2 || rep.Notes[0] != "caller" || rep.Notes[1] != notes[0] {
		t.Errorf("notes %q, reported %q: want the caller's, then lsa's", rep.Notes, notes)
	}
	if docs != len(split.Test) || !slices.Equal(rep.Seeds, []uint64{5, 6}) || rep.Corpus != c.Name {
		t.Errorf("%d documents (want %d), seeds %v, corpus %q", docs, len(split.Test), rep.Seeds, rep.Corpus)
	}
	ev.Baselines, ev.Variants = []string{"lsa"}, nil
	if _, err := Evaluate(context.Background(), ev); !errors.Is(err, ErrNoEntries) {
		t.Errorf("no entry: %v, want ErrNoEntries", err)
	}
	ev.Variants = compare.VariantEntries([]ce.Variant{ce.VariantCE}, false, []*ce.Model{m}, nil, "")
	ev.Split = func(*ce.Model) (corpus.Split, error) { return corpus.Split{Train: split.Train}, nil }
	var nd *NoDocsError
	if _, err := Evaluate(context.Background(), ev); !errors.As(err, &nd) || nd.Subset != "test" {
		t.Errorf("empty subset: %v, want a NoDocsError", err)
	}
}

// TestEvaluateSample checks --sample: each trial evaluates at most Sample
// documents, the report says so, and the same seeds give the same report.
func TestEvaluateSample(t *testing.T) {
	m, c, split := demoModel(t)
	run := func() *eval.Report {
		ev := &Evaluation{Models: []*ce.Model{m}, Corpus: c, Subset: "test", Protocol: eval.Extended,
			Setting: eval.WithinCorpus, Trials: 2, Seed: 3, Sample: 5,
			Variants: compare.VariantEntries([]ce.Variant{ce.VariantCE}, false, []*ce.Model{m}, nil, ""),
			Split:    func(*ce.Model) (corpus.Split, error) { return split, nil }}
		rep, err := Evaluate(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run()
	if r := rep.Models[0]; r.Docs+r.Skipped != 5 || len(split.Test) <= 5 {
		t.Errorf("%d evaluated and %d skipped documents of %d: want a sample of 5", r.Docs, r.Skipped, len(split.Test))
	}
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.Contains(s, "random sample of at most 5") }) {
		t.Errorf("notes %q: none says the documents are sampled", rep.Notes)
	}
	if again := run(); again.Models[0].MAP != rep.Models[0].MAP || again.Models[0].AUC != rep.Models[0].AUC {
		t.Errorf("the same seeds gave MAP %v and %v", rep.Models[0].MAP, again.Models[0].MAP)
	}
}

// TestSampleOf checks the sample: k distinct elements in the order of the
// slice, the same for one seed and another for another seed, and the whole
// slice when it has at most k.
func TestSampleOf(t *testing.T) {
	xs := make([]int, 100)
	for i := range xs {
		xs[i] = i
	}
	a, b, c := sampleOf(xs, 10, 1), sampleOf(xs, 10, 1), sampleOf(xs, 10, 2)
	if len(a) != 10 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 10 {
		t.Errorf("sample %v: want 10 distinct elements in order", a)
	}
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("seed 1 gave %v and %v, seed 2 %v: want the same for one seed, another for another", a, b, c)
	}
	if got := sampleOf(xs[:7], 10, 1); !slices.Equal(got, xs[:7]) {
		t.Errorf("a slice of 7 sampled to 10: %v", got)
	}
}

// TestSampleSize checks the sample a trial draws: the one asked for, none
// for AllDocs, and by default ⌊DefaultRankBudget/V⌋ documents only where the
// documents times the vocabulary exceed the budget.
func TestSampleSize(t *testing.T) {
	for _, tc := range []struct {
		sample, docs, v, want int
		auto                  bool
	}{
		{5, 3, 10, 5, false},
		{AllDocs, 1 << 30, 1 << 20, 0, false},
		{0, DefaultRankBudget / 1000, 1000, 0, false},
		{0, DefaultRankBudget/1000 + 1, 1000, DefaultRankBudget / 1000, true},
		{0, 125811, 31034, DefaultRankBudget / 31034, true},
		{0, 16263, 6700, 0, false},
		{0, 10, 2 * DefaultRankBudget, 1, true},
	} {
		ev := &Evaluation{Sample: tc.sample}
		if k, auto := ev.sampleSize(tc.docs, tc.v); k != tc.want || auto != tc.auto {
			t.Errorf("sample %d of %d documents over %d terms: %d (auto %v), want %d (auto %v)",
				tc.sample, tc.docs, tc.v, k, auto, tc.want, tc.auto)
		}
	}
}

// TestEvaluateOwnScoreNote checks that an extended evaluation with the
// recommender baselines that rank by their own score says so in its notes,
// and that they are tuned on the split's validation documents.
func TestEvaluateOwnScoreNote(t *testing.T) {
	m, c, split := demoModel(t)
	ev := &Evaluation{Models: []*ce.Model{m}, Corpus: c, Subset: "test", Protocol: eval.Extended,
		Setting: eval.WithinCorpus, Trials: 1, Seed: 1, Baselines: []string{"ease", "ease-score", "itemknn"},
		Split: func(*ce.Model) (corpus.Split, error) { return split, nil }}
	rep, err := Evaluate(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	want := "ease-score, itemknn rank a document's vocabulary by their own score"
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("notes %q: want one beginning %q", rep.Notes, want)
	}
	for _, r := range rep.Models {
		tr := r.Tuning["per_trial"].([]map[string]any)[0]
		if crit, _ := tr["criterion"].(string); !strings.HasPrefix(crit, "validation MAP") {
			t.Errorf("%s: criterion %q, want validation MAP", r.Name, crit)
		}
	}
}

// TestEvaluateLongDocs checks that the baselines train on the documents the
// model trained on: a training that left out its longest documents
// (ce.Config.MaxDocTags) makes the evaluation leave them out of the baselines'
// training too, says so, and does not take the split for another one.
func TestEvaluateLongDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	c, _ := corpus.Demo(corpus.DemoSeed)
	split := corpus.DemoSplit(c)
	maxTags := 0
	for _, i := range split.Train {
		maxTags = max(maxTags, len(c.Docs[i].Tags))
	}
	maxTags-- // the longest training documents are left out
	cfg := ce.Config{Seed: 1, Hidden: []int{24, 10}, MaxEpochs1: 1, MaxEpochs2: 1, Patience: 1, EpochExamples: 2000,
		PretrainIterations: -1, Alpha: 0.1, Lambda: 2, Topics: 8, SplitSeed: 1, MaxDocTags: maxTags}
	m, err := Train(context.Background(), Training{Corpus: c, Reserved: corpus.DemoOOVTags, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	long := m.Info().LongDocs
	if long == 0 {
		t.Fatalf("no training document of more than %d tags left out", maxTags)
	}
	kept, out := m.Info().TrainingDocs(c, split.Train)
	if out != long || len(kept) != m.Info().TrainDocs {
		t.Errorf("the baselines' training: %d documents, %d left out; the model's: %d, %d", len(kept), out, m.Info().TrainDocs, long)
	}
	ev := &Evaluation{Models: []*ce.Model{m}, Corpus: c, Subset: "test", Protocol: eval.Extended,
		Setting: eval.WithinCorpus, Trials: 1, Seed: 1, Baselines: []string{"random"}, CheckTrainDocs: true,
		Split: func(*ce.Model) (corpus.Split, error) { return split, nil }}
	rep, err := Evaluate(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.Contains(s, "is it the model's split") }) {
		t.Errorf("notes %q: the model's own split taken for another", rep.Notes)
	}
	want := fmt.Sprintf("%d training documents of more than %d tags left out of the baselines' training", long, maxTags)
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("notes %q: want one beginning %q", rep.Notes, want)
	}
}

// TestEvaluateGloVeSteps checks that GloVe's step count is taken on the
// documents the baselines train on (trialDocs), without trialDocs' notes.
func TestEvaluateGloVeSteps(t *testing.T) {
	m, c, split := demoModel(t)
	ev := &Evaluation{Models: []*ce.Model{m}, Corpus: c, Subset: "test", Protocol: eval.Extended,
		Setting: eval.WithinCorpus, Trials: 1, Seed: 1,
		Split: func(*ce.Model) (corpus.Split, error) { return split, nil }}
	got, err := ev.gloveSteps(-1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ev.trialDocs(m, 0, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	want, err := baselines.GloVeSteps(d.Train, m.Vocabulary().Len(), -1)
	if err != nil || got != want || got <= 0 {
		t.Errorf("%d steps, want %d on the baselines' training documents (%v)", got, want, err)
	}
}
