package ce

import (
	"math"
	"slices"
)

// The defaults that depend on the vocabulary's size (Config.forVocabulary).

// SmallPatience and SmallMaxEpochs2 are the defaults of Config.Patience and
// Config.MaxEpochs2 up to LargeAbove terms, chosen on the validation subsets
// of the development suite (docs/quality-notes.md, D21). On the small
// vocabularies an epoch costs a few seconds, and validation MAP climbs in
// steps separated by plateaus of several epochs, on which patience 6 stopped
// stage 2.
const (
	SmallPatience     = 10
	SmallMaxEpochs2   = 30
	DefaultMaxEpochs2 = 20
	DefaultMaxEpochs1 = 30
)

// LargeMaxEpochs1 and LargeMaxEpochs2 are the defaults of Config.MaxEpochs1
// and Config.MaxEpochs2 above SampleAbove terms: there an epoch costs 3-5 s
// of stage 1 and 5-8 s of stage 2 on 2 cores (the validation ranking grows
// with the vocabulary), so 30 and 20 epochs made a worst case of 5 minutes and
// more (lastfm-hetrec 274 s); 12 and 8 bound every suite corpus's training to
// about 2 minutes 20 seconds whatever early stopping does, at a cost of 2 % of
// Siamese-CE's validation MAP where they bind (docs/quality-notes.md, D52).
const (
	LargeMaxEpochs1 = 12
	LargeMaxEpochs2 = 8
)

// LargeAbove is the vocabulary size above which the large-vocabulary
// defaults apply: unit rows t(τ) (Config.TermNorm), the smoothing before
// Eq. 2 (Config.TermSmooth) and LargeHidden. They were introduced above
// SampleAbove (lastfm-hetrec, 9,743 terms); the development suite's
// validation subsets moved the threshold down to 1,000 terms, where
// github-topics (1,963 training terms) needed them (docs/quality-notes.md, D5).
const LargeAbove = 1000

// LargeHidden is the default Config.Hidden above LargeAbove terms.
var LargeHidden = []int{100, 100, 50}

// forVocabulary returns c with the defaults that depend on the vocabulary
// size v filled in (after withDefaults): Patience and MaxEpochs2 (SmallPatience
// and SmallMaxEpochs2 up to LargeAbove terms, DefaultPatience and
// DefaultMaxEpochs2 above, LargeMaxEpochs2 above SampleAbove), MaxEpochs1
// (DefaultMaxEpochs1, LargeMaxEpochs1 above SampleAbove), Hidden ({100, 100, 10}, or LargeHidden above LargeAbove terms),
// β = √dim(CE) (§4.3.3), Stage2Start (Stage2Best, or Stage2Choose above
// Stage2ChooseAbove terms), FlatStage1 (FlatStop, or FlatKeep above
// SampleAbove terms, where the epoch limits bound a flat stage 1), TermNorm
// (none, or unit above LargeAbove terms) and
// TermSmooth (none, or DefaultTermSmooth above LargeAbove terms; a negative
// value becomes 0).
func (c Config) forVocabulary(v int) Config {
	if c.Stage2Start == "" {
		c.Stage2Start = Stage2Best
		if v > Stage2ChooseAbove {
			c.Stage2Start = Stage2Choose
		}
	}
	if len(c.Hidden) == 0 {
		c.Hidden = []int{100, 100, 10}
		if v > LargeAbove {
			c.Hidden = slices.Clone(LargeHidden)
		}
	}
	if c.Beta == 0 {
		c.Beta = math.Sqrt(float64(c.Hidden[len(c.Hidden)-1]))
	}
	if c.Patience == 0 {
		c.Patience = DefaultPatience
		if v <= LargeAbove {
			c.Patience = SmallPatience
		}
	}
	if c.MaxEpochs1 == 0 {
		c.MaxEpochs1 = DefaultMaxEpochs1
		if v > SampleAbove {
			c.MaxEpochs1 = LargeMaxEpochs1
		}
	}
	if c.MaxEpochs2 == 0 {
		c.MaxEpochs2 = DefaultMaxEpochs2
		switch {
		case v <= LargeAbove:
			c.MaxEpochs2 = SmallMaxEpochs2
		case v > SampleAbove:
			c.MaxEpochs2 = LargeMaxEpochs2
		}
	}
	if c.FlatStage1 == "" {
		c.FlatStage1 = FlatStop
		if v > SampleAbove {
			c.FlatStage1 = FlatKeep
		}
	}
	if c.TermNorm == "" {
		c.TermNorm = "none"
		if v > LargeAbove {
			c.TermNorm = "unit"
		}
	}
	switch {
	case c.TermSmooth < 0:
		c.TermSmooth = 0
	case c.TermSmooth == 0 && v > LargeAbove:
		c.TermSmooth = DefaultTermSmooth
	}
	return c
}
