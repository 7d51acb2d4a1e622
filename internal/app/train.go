package app

import (
	"context"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
)

// Training is a training of the CE and Siamese-CE models on a corpus.
type Training struct {
	Corpus *corpus.Corpus
	// OwnSplit is the corpus's own split (a split file, or the one stored with
	// the corpus); nil draws corpus.RandomSplit with Config.SplitSeed.
	OwnSplit *corpus.Split
	// Reserved are the reserved OOV tags: documents holding one never train
	// the model (paper §5.2).
	Reserved []string
	// Config are the training parameters; Train sets its SplitFromFile and
	// SplitSeed from OwnSplit.
	Config ce.Config
	// Progress, when not nil, receives the trainer's progress reports.
	Progress func(ce.Progress)
}

// Split returns the split of the training: the corpus's own without the
// documents holding a reserved tag in train and valid, or
// corpus.RandomSplit with the reserved tags and Config.SplitSeed.
func (t *Training) Split() corpus.Split {
	if t.OwnSplit == nil {
		return corpus.RandomSplit(t.Corpus, t.Reserved, 0, t.Config.SplitSeed)
	}
	split := *t.OwnSplit
	split.Train = withoutTags(t.Corpus, split.Train, t.Reserved)
	split.Valid = withoutTags(t.Corpus, split.Valid, t.Reserved)
	return split
}

// Train trains the model of t on its split and returns it; the model records
// whether its split was the corpus's own or the seed of the random one. It
// stops with ctx's error when ctx is cancelled.
func Train(ctx context.Context, t Training) (*ce.Model, error) {
	cfg := t.Config
	cfg.SplitFromFile = t.OwnSplit != nil
	if cfg.SplitFromFile {
		cfg.SplitSeed = 0
	}
	return ce.Train(ctx, t.Corpus, t.Split(), cfg, t.Progress)
}

// withoutTags returns the document indices of idx whose documents hold none of
// the reserved tags.
func withoutTags(c *corpus.Corpus, idx []int, reserved []string) []int {
	if len(reserved) == 0 {
		return idx
	}
	res := make(map[string]bool, len(reserved))
	for _, t := range reserved {
		res[t] = true
	}
	var keep []int
outer:
	for _, i := range idx {
		for _, t := range c.Docs[i].Tags {
			if res[t] {
				continue outer
			}
		}
		keep = append(keep, i)
	}
	return keep
}
