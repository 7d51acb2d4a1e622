package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

func testCorpus() *corpus.Corpus {
	return &corpus.Corpus{Name: "t", Docs: []corpus.Document{
		{ID: "a", Tags: []string{"x", "y"}}, {ID: "b", Tags: []string{"y", "z"}},
		{ID: "c", Tags: []string{"x", "oov"}}, {ID: "d", Tags: []string{"z"}},
	}}
}

func TestTrainingSplitOwn(t *testing.T) {
	c := testCorpus()
	own := corpus.Split{Train: []int{0, 1, 2}, Valid: []int{2, 3}, Test: []int{2}}
	tr := Training{Corpus: c, OwnSplit: &own, Reserved: []string{"oov"}}
	got := tr.Split()
	if !slices.Equal(got.Train, []int{0, 1}) || !slices.Equal(got.Valid, []int{3}) || !slices.Equal(got.Test, []int{2}) {
		t.Errorf("split = %+v: want the reserved document out of train and valid only", got)
	}
	if !slices.Equal(own.Train, []int{0, 1, 2}) {
		t.Errorf("the own split was changed: %v", own.Train)
	}
}

func TestTrainingSplitRandom(t *testing.T) {
	c := testCorpus()
	tr := Training{Corpus: c, Reserved: []string{"oov"}, Config: ce.Config{SplitSeed: 7}}
	want := corpus.RandomSplit(c, []string{"oov"}, 0, 7)
	got := tr.Split()
	if !slices.Equal(got.Train, want.Train) || !slices.Equal(got.Valid, want.Valid) || !slices.Equal(got.Test, want.Test) || !slices.Equal(got.OOV, want.OOV) {
		t.Errorf("split = %+v, want corpus.RandomSplit's %+v", got, want)
	}
}

// TestTrainedSplitAgrees: a corpus's own split that puts documents holding a
// reserved OOV tag in train (a split file knows nothing of the reserved
// tags). Training leaves them out, and the split an evaluation takes for the
// trained model (TrainedSplit, as taglens eval and the web app do) is the
// training's, with as many training documents as the model records; the split
// file as read, which taglens eval used before, had more, and the evaluation
// said so.
func TestTrainedSplitAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	c, _ := corpus.Demo(corpus.DemoSeed)
	own := corpus.DemoSplit(c)
	own.Train = append(slices.Clone(own.Train), own.OOV...)
	slices.Sort(own.Train)
	own.OOV = nil
	reserved := corpus.DemoOOVTags
	cfg := ce.Config{Seed: 1, Hidden: []int{16, 8}, MaxEpochs1: 1, MaxEpochs2: 1, Patience: 1, EpochExamples: 2000,
		PretrainIterations: -1, Alpha: 0.1, Lambda: 2, Topics: 4}
	tr := Training{Corpus: c, OwnSplit: &own, Reserved: reserved, Config: cfg}
	m, err := Train(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	got, err := TrainedSplit(m, c, &own, reserved)
	if err != nil {
		t.Fatal(err)
	}
	want := tr.Split()
	if !slices.Equal(got.Train, want.Train) || !slices.Equal(got.Valid, want.Valid) || !slices.Equal(got.Test, want.Test) {
		t.Errorf("the evaluation's split %+v is not the training's %+v", got, want)
	}
	if n := m.Info().TrainDocs; len(got.Train) != n || len(own.Train) <= n {
		t.Errorf("%d training documents in the evaluation's split, %d in the file, the model trained on %d: want the model's, fewer than the file's",
			len(got.Train), len(own.Train), n)
	}
	if _, err := TrainedSplit(m, c, nil, reserved); !errors.Is(err, ErrNoOwnSplit) {
		t.Errorf("a model of an own split evaluated without it: %v, want ErrNoOwnSplit", err)
	}

	mismatch := func(split func(*ce.Model) (corpus.Split, error)) bool {
		ev := &Evaluation{Models: []*ce.Model{m}, Corpus: c, Subset: "test", Protocol: eval.Extended,
			Setting: eval.WithinCorpus, Trials: 1, Seed: 1, Baselines: []string{"random"}, Split: split, CheckTrainDocs: true}
		rep, err := Evaluate(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "is it the model's split?") })
	}
	if mismatch(func(m *ce.Model) (corpus.Split, error) { return TrainedSplit(m, c, &own, reserved) }) {
		t.Error("the evaluation on TrainedSplit says the split is not the model's")
	}
	if !mismatch(func(*ce.Model) (corpus.Split, error) { return own, nil }) {
		t.Error("the split file as read (with the reserved documents in train) passed for the model's")
	}
}
