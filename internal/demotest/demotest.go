// Package demotest finds inputs in the built-in demo corpus for the tests of
// several packages.
package demotest

import (
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// OOVDocument returns the first document of the demo corpus's OOV
// subset with an OOV tag and at least two in-vocabulary tags of vocab (a
// context map's input), its in-vocabulary term ids sorted without repeats,
// and its OOV tags; it fails the test when there is none.
func OOVDocument(t testing.TB, vocab *corpus.Vocabulary) (doc corpus.Document, ids []int, oov []string) {
	t.Helper()
	c, _ := corpus.Demo(corpus.DemoSeed)
	for _, i := range corpus.DemoSplit(c).OOV {
		if ids, oov := vocab.Encode(c.Docs[i]); len(oov) > 0 && len(ids) >= 2 {
			slices.Sort(ids)
			return c.Docs[i], slices.Compact(ids), oov
		}
	}
	t.Fatal("no demo OOV document with two in-vocabulary tags")
	return corpus.Document{}, nil, nil
}
