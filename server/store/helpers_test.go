package store

import (
	"bytes"

	"github.com/taglens/taglens/internal/testkit"
	"github.com/taglens/taglens/ml/corpus"
)

func smallTSV() []byte { return testkit.SmallTSV() }

func mustSplit(c *corpus.Corpus) corpus.Split { return corpus.RandomSplit(c, nil, 0, 1) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
