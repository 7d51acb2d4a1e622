package compare

import (
	"fmt"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

// AddBaselines appends to the plan an entry for each named baseline, in the
// order given, except those that baselines.Skip leaves out of scope; it
// returns Skip's reasons for those, to note in the report.
func (p *Plan) AddBaselines(names []string, scope baselines.Scope) (skipped []string) {
	for _, b := range names {
		if why := baselines.Skip(b, scope); why != "" {
			skipped = append(skipped, why)
			continue
		}
		p.Entries = append(p.Entries, Entry{Name: b, Baseline: b})
	}
	return skipped
}

// Variants are the trained networks of a model (*ce.Model, whose variant
// names are a ce.Variant): its CE variants as eval models, and its OOV
// variants for the OOV setting.
type Variants[V ~string] interface {
	EvalModel(variant V) eval.Model
	OOVEvalModel(variant V, docs []eval.OOVDoc) (eval.OOVModel, error)
}

// VariantEntries returns an entry for each of the variants: trial t evaluates
// the variant of models[min(t, len(models)-1)] (one model per trial, trained
// with several seeds, or one model for every trial) and records tuning(i) of
// models[i] in the report's tuning column (tuning may be nil, and return nil).
// With oov the entries are of the OOV setting (Entry.OOV), otherwise of
// contextual models (Entry.Model). suffix ends every entry's name.
func VariantEntries[V ~string, M Variants[V]](variants []V, oov bool, models []M, tuning func(i int) map[string]any, suffix string) []Entry {
	model := func(t int) (M, map[string]any) {
		i := min(t, len(models)-1)
		if tuning == nil {
			return models[i], nil
		}
		return models[i], tuning(i)
	}
	entries := make([]Entry, 0, len(variants))
	for _, v := range variants {
		e := Entry{Name: string(v) + suffix}
		if oov {
			e.OOV = func(t int, docs []eval.OOVDoc) (eval.OOVModel, map[string]any, error) {
				m, tun := model(t)
				om, err := m.OOVEvalModel(v, docs)
				return om, tun, err
			}
		} else {
			e.Model = func(t int) (eval.Model, map[string]any, error) {
				m, tun := model(t)
				return m.EvalModel(v), tun, nil
			}
		}
		entries = append(entries, e)
	}
	return entries
}

// SelectDocs returns the evaluated documents of a comparison: every document
// of cross when it is not nil (another corpus: cross-corpora or real OOV),
// else those of c in the subset of split ("all" for every document). With
// allWithoutOOV, the subset "oov" of a split that reserved no OOV document is
// every document of c (EncodeDocs then keeps those holding an OOV term).
func SelectDocs(c, cross *corpus.Corpus, split corpus.Split, subset string, allWithoutOOV bool) []corpus.Document {
	switch {
	case cross != nil:
		return cross.Docs
	case subset == "all":
		return c.Docs
	case subset == "oov" && allWithoutOOV && len(split.OOV) == 0:
		return c.Docs
	}
	return c.Select(split.Of(corpus.Subset(subset)))
}

// EncodeDocs encodes the evaluated documents docs against vocab for setting:
// in the OOV setting those holding an OOV term (oov), in the cross-corpora
// setting those whose terms are all in the vocabulary (evalCorpus names their
// corpus), otherwise every one (enc). note says how many were kept and left
// out; it is "" outside those two settings, which leave none out.
func EncodeDocs(vocab *corpus.Vocabulary, docs []corpus.Document, setting eval.Setting, evalCorpus string) (enc [][]int, oov []eval.OOVDoc, note string) {
	var left int
	switch setting {
	case eval.OOVSetting:
		oov, left = eval.WithOOV(vocab, docs)
		note = fmt.Sprintf("%d documents with OOV terms (%d without left out)", len(oov), left)
	case eval.CrossCorpora:
		enc, left = eval.InVocabulary(vocab, docs)
		note = fmt.Sprintf("%d documents of %s with all terms in the vocabulary (%d left out)", len(enc), evalCorpus, left)
	default:
		enc = eval.Encode(vocab, docs)
	}
	return enc, oov, note
}
