package ce

import (
	"fmt"
	"sort"

	"github.com/taglens/taglens/ml/corpus"
)

// DefaultMaxTerms is the default Config.MaxTerms: the largest vocabulary
// Train keeps every training term of. Above it, the terms of the fewest
// training documents are left out, by the rule of rareVocabulary. The
// vocabulary sets the output layer (|Γ| units and their weights, all updated
// at every step), the term features (a |Γ|-row PCA) and the OOV-free part of
// every evaluation, so its size is the training's scale; 50,000 keeps every
// corpus of the development suite (at most 9,743 terms) and pubmed-genes
// (31,000 training terms) whole, while cldr-emoji's 255,000 keywords of
// 137,000 training documents, most of them in one document, go down to the
// ~30,000 used by three documents or more. A term of one document has no
// co-occurrence beyond it for Eq. 2 or Eq. 5 to learn from; left out, it is
// an OOV term at inference (§4.4), which the OOV models place.
const DefaultMaxTerms = 50000

// rareVocabulary returns the vocabulary of the training documents docs, with
// the terms of fewer than k training documents left out for the smallest
// k ≥ 1 that leaves at most maxTerms (maxTerms < 0: no limit); k is 1 when
// every term fits. all is the number of distinct training terms.
func rareVocabulary(docs []corpus.Document, maxTerms int) (v *corpus.Vocabulary, k, all int) {
	df := make(map[string]int)
	for _, d := range docs {
		seen := make(map[string]bool, len(d.Tags))
		for _, t := range d.Tags {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	k = 1
	if maxTerms >= 0 {
		// hist[c] = the number of terms in exactly c documents.
		hist := map[int]int{}
		for _, c := range df {
			hist[c]++
		}
		counts := make([]int, 0, len(hist))
		for c := range hist {
			counts = append(counts, c)
		}
		sort.Ints(counts)
		left := len(df)
		for _, c := range counts {
			if left <= maxTerms {
				break
			}
			left -= hist[c]
			k = c + 1
		}
	}
	terms := make([]string, 0, len(df))
	for t, c := range df {
		if c >= k {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	return corpus.VocabularyOf(terms), k, len(df)
}

// rareNote is the features line's note on the terms rareVocabulary left out.
func (t *trainer) rareNote() string {
	if t.minTermDocs <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d terms of fewer than %d training documents left out: at most %d terms)", t.rareTerms, t.minTermDocs, t.cfg.MaxTerms)
}
