package ce

import (
	"math"
	"slices"
	"testing"
)

// TestDocumentNeighbours: by Euclidean distance the list is PrimeDocument's
// list of the term; by cosine distance every distance is 1 − cos of the two
// CEs computed here from Embed's vectors, in increasing order.
func TestDocumentNeighbours(t *testing.T) {
	tc, m := trainSmall(t)
	tags := tc.c.Docs[0].Tags
	ids, _ := m.encodeTags(tags)
	term := m.vocab.Term(ids[0])
	res, err := m.PrimeDocument(VariantSiamese, tags, 8)
	if err != nil {
		t.Fatal(err)
	}
	euc, err := m.DocumentNeighbours(VariantSiamese, tags, term, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(euc, res.PerTerm[term]) {
		t.Fatalf("Euclidean neighbours %v, PrimeDocument's %v", euc, res.PerTerm[term])
	}
	cos, err := m.DocumentNeighbours(VariantSiamese, tags, term, 8, true)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := m.net(VariantSiamese)
	d := e.ceDim()
	c := make([]float64, m.ctxDim())
	m.contextTo(c, ids)
	all := make([]float64, m.vocab.Len()*d)
	e.embedVocab(all, c)
	q := all[ids[0]*d : (ids[0]+1)*d]
	for i, p := range cos {
		j, _ := m.vocab.ID(p.Term)
		r := all[j*d : (j+1)*d]
		var dot, nq, nr float64
		for k := range q {
			dot += q[k] * r[k]
			nq += q[k] * q[k]
			nr += r[k] * r[k]
		}
		if want := 1 - dot/math.Sqrt(nq*nr); math.Abs(p.Distance-want) > 1e-12 {
			t.Errorf("%s: cosine distance %v, want %v", p.Term, p.Distance, want)
		}
		if i > 0 && p.Distance < cos[i-1].Distance {
			t.Errorf("cosine list not in increasing order at %d", i)
		}
	}
	if _, err := m.DocumentNeighbours(VariantSiamese, tags, "not-a-tag-of-it", 8, true); err == nil {
		t.Error("a term outside the document: no error")
	}
}
