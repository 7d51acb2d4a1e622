package ce

import (
	"fmt"
	"slices"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/features"
)

// DefaultMaxTerms is the default Config.MaxTerms: the largest vocabulary
// Train keeps every training term of. Above it, the terms of the fewest
// training documents are left out, by the rule of leaveOutRare. The
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

// trainVocabulary returns the vocabulary of the training documents train and
// those documents as sorted term ids (the empty ones dropped), both after
// leaveOutRare with maxTerms, its k and the number of terms it left out.
func trainVocabulary(train []corpus.Document, maxTerms int) (vocab *corpus.Vocabulary, docs [][]int, k, rare int) {
	vocab = corpus.NewVocabulary(train)
	for _, ids := range vocab.EncodeAll(train) {
		if len(ids) > 0 {
			docs = append(docs, features.BoW(ids))
		}
	}
	all := vocab.Len()
	vocab, docs, k = leaveOutRare(vocab, docs, maxTerms)
	return vocab, docs, k, all - vocab.Len()
}

// leaveOutRare returns the vocabulary and the training documents (sorted
// ids, non-empty) without the terms of fewer than k training documents, for
// the smallest k ≥ 1 that leaves at most maxTerms terms (maxTerms < 0: no
// limit), and k: 1, and vocab and docs themselves, when every term fits.
// Kept terms keep their order, so documents stay sorted; docs is reused.
func leaveOutRare(vocab *corpus.Vocabulary, docs [][]int, maxTerms int) (*corpus.Vocabulary, [][]int, int) {
	v := vocab.Len()
	if maxTerms < 0 || v <= maxTerms {
		return vocab, docs, 1
	}
	df := features.DocFreq(docs, v)
	desc := slices.Clone(df)
	slices.Sort(desc)
	slices.Reverse(desc)
	k := desc[maxTerms] + 1 // the (maxTerms+1)-th largest count must go
	id := make([]int, v)
	var terms []string
	for t, c := range df {
		id[t] = -1
		if c >= k {
			id[t] = len(terms)
			terms = append(terms, vocab.Term(t))
		}
	}
	kept := docs[:0]
	for _, d := range docs {
		e := d[:0]
		for _, t := range d {
			if id[t] >= 0 {
				e = append(e, id[t])
			}
		}
		if len(e) > 0 {
			kept = append(kept, e)
		}
	}
	return corpus.VocabularyOf(terms), kept, k
}

// rareNote is the features line's note on the terms leaveOutRare left out.
func (t *trainer) rareNote() string {
	if t.minTermDocs <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d terms of fewer than %d training documents left out: at most %d terms)", t.rareTerms, t.minTermDocs, t.cfg.MaxTerms)
}
