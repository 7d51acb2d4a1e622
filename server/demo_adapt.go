package server

import (
	"errors"

	"github.com/taglens/taglens/ml/corpus"
)

// demoCorpus returns the built-in demo corpus and its split.
func demoCorpus() (*corpus.Corpus, corpus.Split, error) {
	return nil, corpus.Split{}, errors.New("the built-in demo corpus (corpus.Demo) is not available yet")
}
