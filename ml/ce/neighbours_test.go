package ce

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestDocumentNeighbours: every distance is the Euclidean distance, or 1 −
// cos, of the two CEs computed here from Embed's vectors — never divided by
// the term widths, whatever the model's — in increasing order; an OOV tag is
// measured from the centroid of the document's in-vocabulary CEs; a term
// outside the document is ErrNotInDocument.
func TestDocumentNeighbours(t *testing.T) {
	tc, trained := trainSmall(t)
	m := withWidth(trained, 0.5) // widths the list must ignore
	tags := tc.c.Docs[0].Tags
	ids, _ := m.encodeTags(tags)
	e, _ := m.net(VariantSiamese)
	d := e.ceDim()
	c := make([]float64, m.ctxDim())
	m.contextTo(c, ids)
	all := make([]float64, m.vocab.Len()*d)
	e.embedVocab(all, c)
	centroid := make([]float64, d)
	for _, id := range ids {
		for k := range centroid {
			centroid[k] += all[id*d+k] / float64(len(ids))
		}
	}
	const oov = "a-tag-outside-the-vocabulary"
	check := func(term string, q []float64, cosine bool) {
		t.Helper()
		list, err := m.DocumentNeighbours(VariantSiamese, append(slices.Clone(tags), oov), term, 8, cosine)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 8 {
			t.Fatalf("%s: %d neighbours, want 8", term, len(list))
		}
		for i, p := range list {
			j, _ := m.vocab.ID(p.Term)
			r := all[j*d : (j+1)*d]
			var dot, nq, nr, sq float64
			for k := range q {
				dot += q[k] * r[k]
				nq += q[k] * q[k]
				nr += r[k] * r[k]
				sq += (q[k] - r[k]) * (q[k] - r[k])
			}
			want := math.Sqrt(sq)
			if cosine {
				want = 1 - dot/math.Sqrt(nq*nr)
			}
			if math.Abs(p.Distance-want) > 1e-9*(1+want) {
				t.Errorf("%s (cosine %v): %s at %v, want %v", term, cosine, p.Term, p.Distance, want)
			}
			if i > 0 && p.Distance < list[i-1].Distance {
				t.Errorf("%s (cosine %v): list not in increasing order at %d", term, cosine, i)
			}
		}
	}
	term := m.vocab.Term(ids[0])
	for _, cosine := range []bool{false, true} {
		check(term, all[ids[0]*d:(ids[0]+1)*d], cosine)
		check(oov, centroid, cosine)
	}
	if _, err := m.DocumentNeighbours(VariantSiamese, tags, "not-a-tag-of-it", 8, true); !errors.Is(err, ErrNotInDocument) {
		t.Errorf("a term outside the document: %v, want ErrNotInDocument", err)
	}
	if _, err := m.DocumentNeighbours(VariantSiamese, []string{oov}, oov, 8, false); err == nil || errors.Is(err, ErrNotInDocument) {
		t.Errorf("a document without an in-vocabulary tag: %v, want an error other than ErrNotInDocument", err)
	}
}
