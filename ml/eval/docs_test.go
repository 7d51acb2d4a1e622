package eval

import (
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

func TestInVocabularyAndWithOOV(t *testing.T) {
	vocab := corpus.VocabularyOf([]string{"a", "b", "c"})
	docs := []corpus.Document{
		{ID: "1", Tags: []string{"a", "b"}},
		{ID: "2", Tags: []string{"a", "x"}},
		{ID: "3", Tags: []string{"y"}},
		{ID: "4", Tags: []string{"c"}},
	}
	enc, left := InVocabulary(vocab, docs)
	if len(enc) != 2 || left != 2 || len(enc[0]) != 2 || enc[1][0] != 2 {
		t.Errorf("InVocabulary: got %v, %d, want [[0 1] [2]], 2", enc, left)
	}
	oov, left := WithOOV(vocab, docs)
	if len(oov) != 2 || left != 2 || oov[0].OOV[0] != "x" || oov[0].Terms[0] != 0 || len(oov[1].Terms) != 0 {
		t.Errorf("WithOOV: got %+v, %d, want docs 2 and 3, 2 left", oov, left)
	}
}
