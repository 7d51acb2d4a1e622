package app

import (
	"errors"
	"io"

	"github.com/taglens/taglens/ml/corpus"
)

// ImportCorpus is the import-a-corpus use case: it parses r in format ("" or
// "auto" detects it; see corpus.ParseFormat) under name, reading at most
// maxBytes (0: no limit; over it the error wraps corpus.ErrTooLarge). The
// parser refuses what the method cannot learn from (fewer than two documents
// with tags) and names the line and the reason of any malformed input.
// progress, when not nil, is told how far the parse is (corpus.ParseOptions.Progress).
func ImportCorpus(r io.Reader, name, format string, maxBytes int64, progress func(corpus.Progress)) (*corpus.Corpus, error) {
	f, err := corpus.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	return corpus.Parse(r, corpus.ParseOptions{Format: f, Name: name, MaxBytes: maxBytes, Progress: progress})
}

// ImportCorpusTo is ImportCorpus handing each kept document to sink as it
// is read (corpus.ParseTo): the returned corpus has no documents.
func ImportCorpusTo(r io.Reader, name, format string, maxBytes int64, progress func(corpus.Progress), sink corpus.DocSink) (*corpus.Corpus, error) {
	f, err := corpus.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	return corpus.ParseTo(r, corpus.ParseOptions{Format: f, Name: name, MaxBytes: maxBytes, Progress: progress}, sink)
}

// ReadSplit reads a split file (corpus.ReadSplit: every id known, assigned
// once, every document assigned) for c and checks that it puts documents in
// train, the one subset training cannot do without.
func ReadSplit(r io.Reader, c *corpus.Corpus) (corpus.Split, error) {
	split, err := corpus.ReadSplit(r, c)
	if err != nil {
		return corpus.Split{}, err
	}
	if len(split.Train) == 0 {
		return corpus.Split{}, errors.New("no document is in train")
	}
	return split, nil
}
