package ce

import (
	"fmt"

	"github.com/taglens/taglens/ml/corpus"
)

// DefaultMaxDocTags is the default Config.MaxDocTags: training documents with
// more than 1,000 tags are left out of training (issue 32).
//
// Why: a genome-wide study that lists 10^4 genes says nothing about which two
// of them go together, yet Eq. 2's counting pass costs |δ|² per document, so
// such a list would outweigh 10^5 ordinary documents in C and in the smoothed
// second count. On pubmed-genes the 97 documents of more than 1,000 tags
// (0.01 % of the corpus, up to 19,919 tags) make 79 % of Σ|δ|² (4.6·10^8 with
// them, 9.6·10^7 without), and C would not fit in memory. 1,000 is above every
// document of the development suite (its longest, on lastfm-hetrec, has 329
// tags), so the suite's models are those of training without a limit
// (design.md, decision 1).
const DefaultMaxDocTags = 1000

// leaveOutLong returns the training documents of idx with at most maxTags
// tags (all of them when maxTags is negative) and the number left out. It
// returns idx itself when none is left out, so that a corpus of short
// documents trains exactly as without a limit.
func leaveOutLong(c *corpus.Corpus, idx []int, maxTags int) (kept []int, out int) {
	if maxTags < 0 {
		return idx, 0
	}
	for _, i := range idx {
		if len(c.Docs[i].Tags) > maxTags {
			out++
		}
	}
	if out == 0 {
		return idx, 0
	}
	kept = make([]int, 0, len(idx)-out)
	for _, i := range idx {
		if len(c.Docs[i].Tags) <= maxTags {
			kept = append(kept, i)
		}
	}
	return kept, out
}

// TrainingDocs returns the documents of idx (a split's training documents)
// that the training recorded in in used: all of them, unless it left out
// documents of more than in.MaxDocTags tags (leaveOutLong), and the number
// left out. A comparison trains its baselines on the same documents.
func (in *Info) TrainingDocs(c *corpus.Corpus, idx []int) (kept []int, out int) {
	if in.LongDocs == 0 || in.MaxDocTags <= 0 {
		return idx, 0
	}
	return leaveOutLong(c, idx, in.MaxDocTags)
}

// longNote is the training log's note of the documents leaveOutLong left
// out ("" when none was).
func (t *trainer) longNote() string {
	if t.longDocs == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d documents of more than %d tags left out)", t.longDocs, t.cfg.MaxDocTags)
}

// recordLeftOut records in the model's Info what encode left out of
// training: the documents leaveOutLong left out and the limit, the terms
// leaveOutRare left out and its k, each pair zero (absent from the file) when
// none was.
func (t *trainer) recordLeftOut(in *Info) {
	if t.longDocs > 0 {
		in.LongDocs, in.MaxDocTags = t.longDocs, t.cfg.MaxDocTags
	}
	if t.minTermDocs > 1 {
		in.MinTermDocs, in.RareTerms = t.minTermDocs, t.rareTerms
	}
}
