package compare

import (
	"fmt"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

func TestAddBaselines(t *testing.T) {
	var p Plan
	skipped := p.AddBaselines([]string{"random", "pca", "crbm"}, baselines.Scope{Protocol: eval.Priming, Subset: "test"})
	if len(p.Entries) != 1 || p.Entries[0].Name != "random" || p.Entries[0].Baseline != "random" {
		t.Errorf("entries %+v, want random only", p.Entries)
	}
	if len(skipped) != 2 {
		t.Errorf("skipped %q, want pca's and crbm's reasons", skipped)
	}
}

// fakeVariants records which of several models a comparison asked for.
type fakeVariants struct {
	id    int
	asked *[]string
}

func (f fakeVariants) EvalModel(v string) eval.Model {
	*f.asked = append(*f.asked, fmt.Sprintf("%d:%s", f.id, v))
	return block{10}
}

func (f fakeVariants) OOVEvalModel(v string, _ []eval.OOVDoc) (eval.OOVModel, error) {
	*f.asked = append(*f.asked, fmt.Sprintf("%d:%s oov", f.id, v))
	return nil, nil
}

// TestVariantEntries: trial t uses model t, or the last model when there are
// fewer; the tuning is the chosen model's, and the suffix ends every name.
func TestVariantEntries(t *testing.T) {
	var asked []string
	ms := []fakeVariants{{0, &asked}, {1, &asked}}
	es := VariantEntries([]string{"ce", "siamese-ce"}, false, ms, func(i int) map[string]any { return map[string]any{"i": i} }, " (x)")
	if len(es) != 2 || es[0].Name != "ce (x)" || es[1].Name != "siamese-ce (x)" || es[0].Model == nil || es[0].OOV != nil {
		t.Fatalf("entries %+v", es)
	}
	for tr := range 3 {
		if _, tun, err := es[1].Model(tr); err != nil || tun["i"] != min(tr, 1) {
			t.Errorf("trial %d: tuning %v, err %v", tr, tun, err)
		}
	}
	if want := []string{"0:siamese-ce", "1:siamese-ce", "1:siamese-ce"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	asked = nil
	es = VariantEntries([]string{"ce-avg"}, true, ms[:1], nil, "")
	if _, tun, _ := es[0].OOV(2, nil); tun != nil || es[0].Model != nil || !slices.Equal(asked, []string{"0:ce-avg oov"}) {
		t.Errorf("OOV entry: tuning %v, asked %q", tun, asked)
	}
}

// TestSelectAndEncodeDocs: the documents of each setting and the notes on
// those left out.
func TestSelectAndEncodeDocs(t *testing.T) {
	doc := func(id string, tags ...string) corpus.Document { return corpus.Document{ID: id, Tags: tags} }
	c := &corpus.Corpus{Name: "c", Docs: []corpus.Document{doc("a", "x", "y"), doc("b", "y", "z"), doc("c", "x", "w")}}
	other := &corpus.Corpus{Name: "o", Docs: []corpus.Document{doc("p", "x", "y"), doc("q", "x", "new")}}
	vocab := corpus.NewVocabulary(c.Docs[:2])
	split := corpus.Split{Train: []int{0, 1}, Test: []int{2}}

	if got := SelectDocs(c, nil, split, "test", false); len(got) != 1 || got[0].ID != "c" {
		t.Errorf("test subset: %v", got)
	}
	if got := SelectDocs(c, nil, split, "all", false); len(got) != 3 {
		t.Errorf("all: %d documents", len(got))
	}
	if got := SelectDocs(c, other, split, "test", false); len(got) != 2 {
		t.Errorf("another corpus: %d documents, want all 2", len(got))
	}
	if got := SelectDocs(c, nil, split, "oov", true); len(got) != 3 {
		t.Errorf("oov without reserved documents: %d documents, want all 3", len(got))
	}
	if got := SelectDocs(c, nil, split, "oov", false); len(got) != 0 {
		t.Errorf("oov subset of a split file without oov documents: %d documents, want none", len(got))
	}

	enc, oov, note := EncodeDocs(vocab, c.Docs, eval.OOVSetting, "c")
	if enc != nil || len(oov) != 1 || note != "1 documents with OOV terms (2 without left out)" {
		t.Errorf("OOV setting: %v %v %q", enc, oov, note)
	}
	enc, oov, note = EncodeDocs(vocab, other.Docs, eval.CrossCorpora, "o")
	if len(enc) != 1 || oov != nil || note != "1 documents of o with all terms in the vocabulary (1 left out)" {
		t.Errorf("cross-corpora: %v %v %q", enc, oov, note)
	}
	if enc, _, note = EncodeDocs(vocab, c.Docs[:2], eval.WithinCorpus, "c"); len(enc) != 2 || note != "" {
		t.Errorf("within corpus: %v %q", enc, note)
	}
}
