package server

import (
	"github.com/taglens/taglens/ml/corpus"
)

// demoCorpus returns the built-in demo corpus (corpus.Demo with corpus.DemoSeed)
// and its split (corpus.DemoSplit, which reserves corpus.DemoOOVTags as OOV).
func demoCorpus() (*corpus.Corpus, corpus.Split, error) {
	c, _ := corpus.Demo(corpus.DemoSeed)
	return c, corpus.DemoSplit(c), nil
}

// demoTerm is the explorer's default term on the demo corpus: a planted
// polysemous tag whose two senses the map should separate.
const demoTerm = "guitar"
