package eval

import "github.com/taglens/taglens/ml/corpus"

// Encode returns the in-vocabulary term indices of each document (the within-corpus
// setting: every document is kept, possibly shorter or empty; Evaluate skips those
// below Options.MinTerms).
func Encode(vocab *corpus.Vocabulary, docs []corpus.Document) [][]int {
	return vocab.EncodeAll(docs)
}

// InVocabulary returns the encoded documents whose terms are all in vocab — the
// eligible documents of the cross-corpora setting (paper §6.2.2) — and the number of
// documents left out because they hold an out-of-vocabulary term.
func InVocabulary(vocab *corpus.Vocabulary, docs []corpus.Document) (enc [][]int, left int) {
	for _, d := range docs {
		ids, oov := vocab.Encode(d)
		if len(oov) > 0 {
			left++
			continue
		}
		enc = append(enc, ids)
	}
	return enc, left
}

// WithOOV returns the documents that hold at least one out-of-vocabulary term (the
// OOV setting, §6.2.4), split into in-vocabulary terms and OOV terms, and the number
// of documents left out because all their terms are in vocab. Documents whose terms
// are all OOV are kept; EvaluateOOV skips and counts them.
func WithOOV(vocab *corpus.Vocabulary, docs []corpus.Document) (out []OOVDoc, left int) {
	for _, d := range docs {
		ids, oov := vocab.Encode(d)
		if len(oov) == 0 {
			left++
			continue
		}
		out = append(out, OOVDoc{Terms: ids, OOV: oov})
	}
	return out, left
}
