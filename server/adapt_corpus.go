package server

import (
	"io"

	"github.com/taglens/taglens/ml/corpus"
)

// parseCorpus streams r into the corpus parser. format "" detects it; gzip
// input is decompressed, up to maxBytes.
func parseCorpus(r io.Reader, name, format string, maxBytes int64) (*corpus.Corpus, error) {
	f, err := corpus.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	return corpus.Parse(r, corpus.ParseOptions{Format: f, Name: name, MaxBytes: maxBytes})
}
