package ce

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/internal/defaults"
)

// Embed returns the concept embedding CE(τ|δ) of every tag of the tag set
// tags, each in the context δ of the set's in-vocabulary tags, with the
// variant "ce" or "siamese-ce". Tags are typed input, matched by Lookup
// (exactly, else ignoring case when one term matches): vectors are keyed by
// the vocabulary term. Tags outside the vocabulary are listed in oov and
// placed by the concept-based method (§4.4: the centroid of the
// in-vocabulary tags' CE). Blank and repeated tags are ignored. It returns an
// *OOVError when no tag is in the vocabulary, or an error for an unknown
// variant.
func (m *Model) Embed(variant Variant, tags []string) (vectors map[string][]float64, oov []string, err error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, nil, err
	}
	ids, oov, rs := m.resolveTags(tags)
	if len(ids) == 0 {
		if len(rs) == 0 {
			return nil, nil, errors.New("ce: embed: the tag set is empty")
		}
		return nil, oov, &OOVError{Variant: variant, Tags: rs}
	}
	d := e.ceDim()
	c := make([]float64, m.ctxDim())
	m.contextTo(c, ids)
	ce := make([]float64, len(ids)*d)
	e.embedTerms(ce, ids, c)
	vectors = make(map[string][]float64, len(ids)+len(oov))
	local := make([]int, len(ids))
	for i, id := range ids {
		vectors[m.vocab.Term(id)] = slices.Clone(ce[i*d : (i+1)*d])
		local[i] = i
	}
	if len(oov) > 0 {
		cen := make([]float64, d)
		centroidTo(cen, ce, local, d)
		for _, t := range oov {
			vectors[t] = slices.Clone(cen)
		}
	}
	return vectors, oov, nil
}

// encodeTags splits a document's tag set into sorted distinct in-vocabulary
// ids and OOV tags in input order, matching tags exactly (as training did);
// tags are trimmed, blanks and repeats dropped. Typed tag sets go through
// resolveTags instead.
func (m *Model) encodeTags(tags []string) (ids []int, oov []string) {
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if id, ok := m.vocab.ID(t); ok {
			ids = append(ids, id)
		} else {
			oov = append(oov, t)
		}
	}
	slices.Sort(ids)
	return ids, oov
}

// A Primed term is one entry of a ranked list.
type Primed struct {
	Term     string  `json:"term"`
	Distance float64 `json:"distance"`
	InDoc    bool    `json:"in_doc"`
}

// A PrimeResult is the answer to Prime (the JSON shape of prime API of docs/api.md).
type PrimeResult struct {
	OOV      []string            `json:"oov"`
	Extended []Primed            `json:"extended"`
	PerTerm  map[string][]Primed `json:"per_term"`
	// Matched maps each typed tag found only ignoring case to its
	// vocabulary term (PerTerm is keyed by the term). Prime only.
	Matched map[string]string `json:"matched,omitempty"`
	// Suggestions holds, for OOV tags, the closest vocabulary terms
	// (Model.Suggest); OOV tags with none are left out. Prime only.
	Suggestions map[string][]string `json:"suggestions,omitempty"`
}

// Prime primes related terms for a tag set δ with the variant "ce" or
// "siamese-ce" (paper §6.1):
//
//   - Extended is the extended-priming list of Eq. 9: every vocabulary term τ_j
//     ranked by min over the set's in-vocabulary tags t̂ ≠ τ_j of
//     ‖CE(t̂|δ) − CE(τ_j|δ)‖ (divided by τ_j's width when the model has term
//     widths, width.go), the k nearest, with InDoc marking the set's tags.
//   - PerTerm[tag] is the priming list of Eq. 8 of each tag in the context of the
//     set (its k nearest vocabulary terms, itself included); an OOV tag is placed
//     by the concept-based method (centroid, §4.4).
//
// The tags are typed input, matched by Lookup: exactly, else ignoring case
// when one term matches (Matched lists those); OOV tags get Suggestions.
// k ≤ 0 means 10; k is capped at |Γ|. Ties are broken by term order. It
// returns an *OOVError when no tag is in the vocabulary, or an error for an
// empty set or an unknown variant.
func (m *Model) Prime(variant Variant, tags []string, k int) (*PrimeResult, error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, err
	}
	ids, oov, rs := m.resolveTags(tags)
	if len(ids) == 0 {
		if len(rs) == 0 {
			return nil, errors.New("ce: prime: the tag set is empty")
		}
		return nil, &OOVError{Variant: variant, Tags: rs}
	}
	res := m.prime(e, ids, oov, k)
	for _, r := range rs {
		switch {
		case r.Folded:
			if res.Matched == nil {
				res.Matched = map[string]string{}
			}
			res.Matched[r.Tag] = r.Term
		case r.Term == "" && len(r.Suggest) > 0:
			if res.Suggestions == nil {
				res.Suggestions = map[string][]string{}
			}
			res.Suggestions[r.Tag] = r.Suggest
		}
	}
	return res, nil
}

// PrimeDocument is Prime for the tags of a stored document, matched exactly
// as training and EmbedDocument match them (no case folding, no
// suggestions): the neighbours of an instance on a map.
func (m *Model) PrimeDocument(variant Variant, tags []string, k int) (*PrimeResult, error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, err
	}
	ids, oov := m.encodeTags(tags)
	if len(ids) == 0 {
		return nil, errors.New("ce: prime: no tag of the document is in the model's vocabulary")
	}
	return m.prime(e, ids, oov, k), nil
}

// ErrNotInDocument is DocumentNeighbours' error for a term that is not a tag
// of the document.
var ErrNotInDocument = errors.New("ce: neighbours: the term is not a tag of the document")

// DocumentNeighbours returns the k vocabulary terms nearest to the instance
// of term in δ, δ the stored document's tags matched as PrimeDocument matches
// them: CE(term|δ) for an in-vocabulary tag, the centroid of the document's
// in-vocabulary CEs for an OOV tag (as Prime places it). The distance is the
// Euclidean distance of the CE space (cosine false) or 1 − cos of the two
// vectors (cosine true), between the points the maps draw: never divided by
// the term widths, which only Prime's lists (Eq. 8 and 9) use. term must be a
// tag of the document, and the document must hold an in-vocabulary tag.
func (m *Model) DocumentNeighbours(variant Variant, tags []string, term string, k int, cosine bool) ([]Primed, error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, err
	}
	ids, oov := m.encodeTags(tags)
	id, inVocab := m.vocab.ID(term)
	if !(inVocab && slices.Contains(ids, id)) && !slices.Contains(oov, term) {
		return nil, fmt.Errorf("%w: %q", ErrNotInDocument, term)
	}
	if len(ids) == 0 {
		return nil, errors.New("ce: neighbours: no tag of the document is in the model's vocabulary")
	}
	defaults.Positive(&k, 10)
	v, d := e.v, e.ceDim()
	ce, inDoc := m.vocabInContext(e, ids)
	var q []float64
	if inVocab {
		q = ce[id*d : (id+1)*d]
	} else {
		q = make([]float64, d)
		centroidTo(q, ce, ids, d)
	}
	dist := make([]float64, v)
	qn := floats.Norm(q, 2)
	for j := range dist {
		r := ce[j*d : (j+1)*d]
		if cosine {
			dist[j] = 1 - floats.Dot(q, r)/(qn*floats.Norm(r, 2))
		} else {
			dist[j] = euclid(q, r)
		}
	}
	return topK(m, dist, inDoc, min(k, v)), nil
}

// vocabInContext returns CE(τ|δ) of every vocabulary term (|Γ| × ceDim) in
// the context of the in-vocabulary ids of δ, and which terms δ holds.
func (m *Model) vocabInContext(e *embedder, ids []int) (ce []float64, inDoc []bool) {
	c := make([]float64, m.ctxDim())
	m.contextTo(c, ids)
	ce = make([]float64, e.v*e.ceDim())
	e.embedVocab(ce, c)
	inDoc = make([]bool, e.v)
	for _, id := range ids {
		inDoc[id] = true
	}
	return ce, inDoc
}

// prime computes Prime's lists for in-vocabulary ids (sorted, distinct) and
// OOV tags.
func (m *Model) prime(e *embedder, ids []int, oov []string, k int) *PrimeResult {
	defaults.Positive(&k, 10)
	v, d := e.v, e.ceDim()
	k = min(k, v)
	ce, inDoc := m.vocabInContext(e, ids)
	res := &PrimeResult{OOV: oov, PerTerm: map[string][]Primed{}}
	if res.OOV == nil {
		res.OOV = []string{}
	}
	mn := make([]float64, v)
	for j := range mn {
		mn[j] = math.Inf(1)
	}
	dist := make([]float64, v)
	rank := func(q []float64) []Primed {
		for j := range dist {
			dist[j] = euclid(q, ce[j*d:(j+1)*d])
		}
		toWidths(dist, e.invWidth)
		return topK(m, dist, inDoc, k)
	}
	for _, id := range ids {
		q := ce[id*d : (id+1)*d]
		res.PerTerm[m.vocab.Term(id)] = rank(q)
		eval.MinRow(mn, dist, id)
	}
	if len(oov) > 0 {
		cen := make([]float64, d)
		centroidTo(cen, ce, ids, d)
		for _, t := range oov {
			res.PerTerm[t] = rank(cen)
		}
	}
	res.Extended = topK(m, mn, inDoc, k)
	return res
}

// topK returns the k terms of smallest dist (ties by index); +Inf entries are
// left out (a one-tag set has no eligible distance for that tag in Eq. 9).
func topK(m *Model, dist []float64, inDoc []bool, k int) []Primed {
	idx := make([]int, 0, len(dist))
	for j, x := range dist {
		if !math.IsInf(x, 1) && !math.IsNaN(x) {
			idx = append(idx, j)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return dist[idx[a]] < dist[idx[b]] })
	idx = idx[:min(k, len(idx))]
	out := make([]Primed, len(idx))
	for i, j := range idx {
		out[i] = Primed{Term: m.vocab.Term(j), Distance: dist[j], InDoc: inDoc[j]}
	}
	return out
}

// EmbedDocument returns CE(τ|δ) (len(δ_iv) × dim CE, row i for ids[i]) of the
// in-vocabulary tags of one document, each in the document's context, plus the
// concept-based CE of its OOV tags; used by export and the explorer.
func (m *Model) EmbedDocument(variant Variant, tags []string) (ids []int, oov []string, ce, oovCE [][]float64, err error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ids, oov = m.encodeTags(tags)
	if len(ids) == 0 {
		return nil, oov, nil, nil, fmt.Errorf("ce: no tag of the document is in the model's vocabulary")
	}
	d := e.ceDim()
	c := make([]float64, m.ctxDim())
	m.contextTo(c, ids)
	flat := make([]float64, len(ids)*d)
	e.embedTerms(flat, ids, c)
	local := make([]int, len(ids))
	for i := range ids {
		ce = append(ce, flat[i*d:(i+1)*d:(i+1)*d])
		local[i] = i
	}
	for range oov {
		cen := make([]float64, d)
		centroidTo(cen, flat, local, d)
		oovCE = append(oovCE, cen)
	}
	return ids, oov, ce, oovCE, nil
}

// TermCentroids returns, for every vocabulary term τ (row τ of the result,
// in vocabulary order), the mean of CE(τ|δ) over the documents δ of docs that
// hold τ — a context-free summary of the term, its point in a map of the whole
// space — and the number of such documents (0 leaves a zero row). Documents
// without an in-vocabulary tag are skipped. It stops with ctx's error when ctx
// is cancelled.
func (m *Model) TermCentroids(ctx context.Context, variant Variant, docs [][]string) (centroids [][]float64, counts []int, err error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, nil, err
	}
	d := e.ceDim()
	v := m.vocab.Len()
	sum := make([]float64, v*d)
	counts = make([]int, v)
	c := make([]float64, m.ctxDim())
	var flat []float64
	for i, tags := range docs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		ids, _ := m.encodeTags(tags)
		if len(ids) == 0 {
			continue
		}
		m.contextTo(c, ids)
		flat = slices.Grow(flat[:0], len(ids)*d)[:len(ids)*d]
		e.embedTerms(flat, ids, c)
		for k, id := range ids {
			row := sum[id*d : (id+1)*d]
			for j, x := range flat[k*d : (k+1)*d] {
				row[j] += x
			}
			counts[id]++
		}
	}
	centroids = make([][]float64, v)
	for t := range centroids {
		row := sum[t*d : (t+1)*d : (t+1)*d]
		if n := counts[t]; n > 0 {
			for j := range row {
				row[j] /= float64(n)
			}
		}
		centroids[t] = row
	}
	return centroids, counts, nil
}

// OOVCentroids is TermCentroids for the tags of docs outside the vocabulary:
// for each such tag τ (terms, in sorted order), the mean over the documents δ
// of docs that hold it and at least one vocabulary tag of its feature-based
// concept embedding CE(x(τ,δ)) (§4.4: t(τ) built by TermFeatures.OOVTo from
// those documents' vocabulary tags, the context l(δ) from the same tags), and
// the number of such documents. Tags whose documents hold no vocabulary tag
// are left out. It stops with ctx's error when ctx is cancelled.
func (m *Model) OOVCentroids(ctx context.Context, variant Variant, docs [][]string) (terms []string, centroids [][]float64, counts []int, err error) {
	e, err := m.net(variant)
	if err != nil {
		return nil, nil, nil, err
	}
	holding := map[string][][]int{} // an OOV tag's documents, as their vocabulary tags
	for i, tags := range docs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
		}
		ids, oov := m.encodeTags(tags)
		if len(ids) == 0 {
			continue
		}
		for _, t := range oov {
			holding[t] = append(holding[t], ids)
		}
	}
	terms = slices.Sorted(maps.Keys(holding))
	d := e.ceDim()
	tx := make([]float64, m.terms.Dim())
	c := make([]float64, m.ctxDim())
	q := make([]float64, d)
	flat := make([]float64, len(terms)*d)
	counts = make([]int, len(terms))
	centroids = make([][]float64, len(terms))
	for i, t := range terms {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
		}
		if err := m.terms.OOVTo(tx, holding[t]); err != nil {
			return nil, nil, nil, fmt.Errorf("ce: %q: %w", t, err)
		}
		row := flat[i*d : (i+1)*d : (i+1)*d]
		for _, ids := range holding[t] {
			m.contextTo(c, ids)
			e.embedInput(q, tx, c)
			for j, x := range q {
				row[j] += x
			}
		}
		counts[i] = len(holding[t])
		for j := range row {
			row[j] /= float64(counts[i])
		}
		centroids[i] = row
	}
	return terms, centroids, counts, nil
}
