package app

import (
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
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
