package ce

import (
	"context"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// TestRareVocabulary checks the rule above the vocabulary limit: the terms of
// the fewest documents go first, a whole document count at a time, a term
// repeated within a document counted once.
func TestRareVocabulary(t *testing.T) {
	doc := func(tags ...string) corpus.Document { return corpus.Document{Tags: tags} }
	docs := []corpus.Document{doc("a", "b", "c"), doc("a", "b", "b"), doc("a", "d"), doc("e")}
	for _, tc := range []struct {
		max   int
		k     int
		terms []string
	}{
		{-1, 1, []string{"a", "b", "c", "d", "e"}},
		{5, 1, []string{"a", "b", "c", "d", "e"}},
		{4, 2, []string{"a", "b"}},
		{2, 2, []string{"a", "b"}},
		{1, 3, []string{"a"}},
	} {
		v, _, k, rare := trainVocabulary(docs, tc.max)
		all := v.Len() + rare
		if k != tc.k || all != 5 || !slices.Equal(v.Terms(), tc.terms) {
			t.Errorf("limit %d: k %d, %d terms in all, vocabulary %v; want k %d, 5, %v", tc.max, k, all, v.Terms(), tc.k, tc.terms)
		}
	}
}

// TestTrainRareTerms: a training over the limit records what it left out and
// keeps only terms of enough documents.
func TestTrainRareTerms(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 1
	whole, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxTerms = whole.vocab.Len() - 5
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	if m.vocab.Len() > cfg.MaxTerms || in.MinTermDocs < 2 || in.RareTerms != whole.vocab.Len()-m.vocab.Len() {
		t.Fatalf("%d of %d terms kept (limit %d), Info: min docs %d, rare %d", m.vocab.Len(), whole.vocab.Len(), cfg.MaxTerms, in.MinTermDocs, in.RareTerms)
	}
	if w := whole.Info(); w.MinTermDocs != 0 || w.RareTerms != 0 {
		t.Errorf("under the limit, Info records min docs %d, rare %d", w.MinTermDocs, w.RareTerms)
	}
}
