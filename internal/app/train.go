package app

import (
	"context"
	"errors"

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

// Split returns the split of the training (ModelSplit with the corpus's own
// split, the reserved tags and Config.SplitSeed).
func (t *Training) Split() corpus.Split {
	return ModelSplit(t.Corpus, t.OwnSplit, t.Reserved, t.Config.SplitSeed)
}

// ModelSplit is the split a model of corpus c is trained with: own, the
// corpus's own split (a split file, or the one stored with the corpus),
// without the documents holding a reserved tag in train and valid (§5.2); or,
// when own is nil, corpus.RandomSplit with the reserved tags and the split
// seed. Training.Split and TrainedSplit (the evaluations of taglens eval and
// the web app) both take it from here, so a model is evaluated on the split it
// was trained with.
func ModelSplit(c *corpus.Corpus, own *corpus.Split, reserved []string, seed uint64) corpus.Split {
	if own == nil {
		return corpus.RandomSplit(c, reserved, 0, seed)
	}
	split := *own
	split.Train = withoutTags(c, split.Train, reserved)
	split.Valid = withoutTags(c, split.Valid, reserved)
	return split
}

// ErrNoOwnSplit is TrainedSplit's error for a model trained on its corpus's
// own split when that split is not given.
var ErrNoOwnSplit = errors.New("the model was trained on the corpus's own split, which was not given")

// TrainedSplit returns the split model m was trained with on c: ModelSplit
// with own (the corpus's own split, nil for none), the reserved OOV tags and
// the split seed m records. A model trained on its corpus's own split needs
// own (ErrNoOwnSplit); given for a model of a random split, own wins.
func TrainedSplit(m *ce.Model, c *corpus.Corpus, own *corpus.Split, reserved []string) (corpus.Split, error) {
	in := m.Info()
	if own == nil && in.SplitFromFile {
		return corpus.Split{}, ErrNoOwnSplit
	}
	return ModelSplit(c, own, reserved, in.SplitSeed), nil
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
