package ce

import (
	"math/rand/v2"
	"slices"

	"github.com/taglens/taglens/ml/eval"
)

// ValidTerms is the default Config.ValidTerms, the largest vocabulary the
// validation ranks whole. Above it,
// early stopping ranks each validation document's terms among a fixed sample
// of ValidTerms vocabulary terms: every term of the validation documents and
// a seeded random sample of the others (stream 7 of the training seed), the
// same sample for every evaluation of the training, so stopping stays
// deterministic. An evaluation embeds every candidate term in the document's
// context, so its cost grows with the candidates: at 31,000 terms (pubmed-genes)
// the full ranking cost three times the sampled one. Up to ValidTerms terms
// (every corpus of the development suite) nothing changes. The sample's size
// is recorded in the model (Info.ValidTerms); the validation figures of such
// a model rank among it.
const ValidTerms = 10000

// sampleValidTerms replaces the validation documents' term ids by indices
// into a sample of limit of the v vocabulary terms when v > limit (see
// ValidTerms), keeping the sample (vocabulary ids, increasing) in t.validTerms.
func (t *trainer) sampleValidTerms(v, limit int) {
	if v <= limit {
		return
	}
	in := make([]bool, v)
	n := 0
	for _, d := range t.valid {
		for _, x := range d {
			if !in[x] {
				in[x], n = true, n+1
			}
		}
	}
	if n < limit {
		rest := make([]int, 0, v-n)
		for x := range v {
			if !in[x] {
				rest = append(rest, x)
			}
		}
		rng := rand.New(rand.NewPCG(t.cfg.Seed, 7))
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		for _, x := range rest[:limit-n] {
			in[x] = true
		}
	}
	idx := make([]int32, v)
	t.validTerms = t.validTerms[:0]
	for x, ok := range in {
		if ok {
			idx[x] = int32(len(t.validTerms))
			t.validTerms = append(t.validTerms, x)
		}
	}
	for i, d := range t.valid {
		e := make([]int, len(d))
		for j, x := range d {
			e[j] = int(idx[x])
		}
		t.valid[i] = e // idx is increasing in x: e stays sorted
	}
}

// subsetModel is a network as an eval.Model over a subset of the vocabulary
// (sorted vocabulary ids): term i of the evaluation is terms[i]. Its
// evalModel's embedder holds the subset's rows only (subsetRows), so a
// document embeds len(terms) terms; the context is folded in from the
// subset's terms mapped back. It implements none of eval's optional
// interfaces (screening, prepared queries).
type subsetModel struct {
	x     *evalModel
	terms []int
}

// subsetRows returns the rows of termX of the given terms.
func subsetRows(termX [][]float64, terms []int) [][]float64 {
	rows := make([][]float64, len(terms))
	for i, t := range terms {
		rows[i] = termX[t]
	}
	return rows
}

func (s *subsetModel) Name() string     { return s.x.Name() }
func (s *subsetModel) Contextual() bool { return true }
func (s *subsetModel) VocabSize() int   { return len(s.terms) }

// Distances implements eval.Model on the subset: ctx and queries are subset
// indices, dst is len(queries) × len(terms).
func (s *subsetModel) Distances(ctx, queries []int, _ *rand.Rand, dst []float64) {
	doc := make([]int, len(ctx))
	for i, c := range ctx {
		doc[i] = s.terms[c]
	}
	slices.Sort(doc)
	c := make([]float64, s.x.m.ctxDim())
	s.x.m.contextTo(c, doc)
	s.x.distancesIn(c, queries, dst)
}

// validModel returns params as the VariantCE network that validate
// evaluates: over the validation sample's terms when there is one.
func (t *trainer) validModel(params []float64) eval.Model {
	m := t.snapshot(params)
	em := &evalModel{m: m, name: VariantCE, e: m.nets[VariantCE]}
	if t.validTerms == nil {
		return em
	}
	return &subsetModel{x: em, terms: t.validTerms}
}
