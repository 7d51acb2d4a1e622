package ce

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/topic"
	"gonum.org/v1/gonum/floats"
)

// contextTo sets scaled (ContextDim) to the decorrelated, scaled local context
// of the document with in-vocabulary terms doc: l(δ) = p(φ|δ) (Eq. 3) folded in
// with the trained topics fixed, by the deterministic variational estimate
// (topic.LDA.InferVBTo), then the training PCA and scaling (§5.2). Training
// contexts were computed the same way, so training and test inputs agree, and
// the context of a document does not depend on any random stream. OOV terms
// must already be removed (§4.4: the context uses in-vocabulary terms only).
// With ContextLDAMean the mean of the scaled rows t(τ') over the document's
// terms follows (zeros for an empty document).
func (m *Model) contextTo(scaled []float64, doc []int) {
	ldaContextTo(m.lda, m.ctxProj, scaled, doc)
	if !hasMean(m.info.Context) {
		return
	}
	mean := scaled[m.ctxProj.Out:]
	clear(mean)
	for _, τ := range doc {
		floats.Add(mean, m.terms.Row(τ)[:len(mean)])
	}
	if len(doc) > 0 {
		floats.Scale(1/float64(len(doc)), mean)
	}
}

// ldaContextTo sets dst[:proj.Out] to l(δ) of doc through the training PCA
// and scaling: the first part of contextTo, and the context of a completion
// group in training (trainSet.looCtx), computed alike by construction.
func ldaContextTo(lda *topic.LDA, proj *features.Projection, dst []float64, doc []int) {
	raw := make([]float64, lda.NumTopics())
	lda.InferVBTo(raw, doc)
	proj.TransformTo(dst[:proj.Out], raw)
}

// meanDim is the width of the mean term row of ContextLDAMean: the first
// (largest) principal components of t(τ).
func meanDim(termDim int) int { return min(termDim, 30) }

// ctxDim is the width of the context part of the network's input.
func (m *Model) ctxDim() int {
	if hasMean(m.info.Context) {
		return m.ctxProj.Out + meanDim(m.terms.Dim())
	}
	return m.ctxProj.Out
}

// prodDim is the width of the product part of the network's input
// (ContextLDAMeanProduct), 0 without it.
func (m *Model) prodDim() int {
	if m.info.Context == ContextLDAMeanProduct {
		return meanDim(m.terms.Dim())
	}
	return 0
}

// evalModel is CE or Siamese-CE as an eval.Model.
type evalModel struct {
	m       *Model
	name    Variant
	e       *embedder
	centres bool // the distances between the centres, without the term widths (CentreModel)
}

// EvalModel returns the variant (VariantCE or VariantSiamese) as an
// eval.Model: the distance is e(τ, τ_i|δ) = ‖CE(τ|δ) − CE(τ_i|δ)‖₂ in CE space
// (Eq. 8), divided by τ_i's width when the model has term widths (width.go). It panics on another variant (user input goes through
// ParseVariant).
func (m *Model) EvalModel(variant Variant) eval.Model {
	e, err := m.net(variant)
	if err != nil {
		panic(err.Error())
	}
	return &evalModel{m: m, name: variant, e: e}
}

// ResultKey implements eval.SharedResultModel: the variant whose network
// and widths are the model's other variant's (Siamese-CE kept as CE's
// network, D54) has that variant's key, so a comparison ranks once for both.
func (x *evalModel) ResultKey() string {
	v := x.name
	if v == VariantSiamese && x.m.siameseIsCE() {
		v = VariantCE
	}
	return fmt.Sprintf("ce/%p/%s/%t", x.m, v, x.centres)
}

// siameseIsCE reports whether Siamese-CE's parameters and term widths are
// CE's, bit for bit.
func (m *Model) siameseIsCE() bool {
	a, b := m.nets[VariantCE], m.nets[VariantSiamese]
	if a == nil || b == nil {
		return false
	}
	bits := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
	}
	return bits(m.params[VariantCE], m.params[VariantSiamese]) && bits(a.invWidth, b.invWidth)
}

func (x *evalModel) Name() string     { return string(x.name) }
func (x *evalModel) Contextual() bool { return true }
func (x *evalModel) VocabSize() int   { return x.e.v }

// Distances implements eval.Model. The context is folded in deterministically
// (rng is not used). It computes CE(τ_j|δ) for every vocabulary term in one
// batch and is safe for concurrent use.
func (x *evalModel) Distances(ctx, queries []int, _ *rand.Rand, dst []float64) {
	c := make([]float64, x.m.ctxDim())
	x.m.contextTo(c, ctx)
	x.distancesIn(c, queries, dst)
}

// distancesIn is Distances for the scaled context input c: the distances of
// the queries (indices into the embedder's terms) to every one of its terms.
func (x *evalModel) distancesIn(c []float64, queries []int, dst []float64) {
	v, d := x.e.v, x.e.ceDim()
	if len(dst) != len(queries)*v {
		panic(fmt.Sprintf("ce: Distances: len(dst) = %d, want %d", len(dst), len(queries)*v))
	}
	buf := x.e.vocabScratch()
	defer x.e.vocab.Put(buf)
	ce := (*buf)[:v*d]
	x.e.embedVocab(ce, c)
	euclidRows(dst, ce, v, d, queries)
	x.widths(dst)
}

// widths divides the rows of distances dst by the term widths, unless x
// gives the centres' distances.
func (x *evalModel) widths(dst []float64) { toWidths(dst, x.invWidths()) }

// invWidths returns the 1/σ_j that x's distances are multiplied by: nil for
// the centres' distances or a model without widths.
func (x *evalModel) invWidths() []float64 {
	if x.centres {
		return nil
	}
	return x.e.invWidth
}

// euclidRows sets dst[i·v+j] = euclid(ce_{q_i}, ce_j) for the queries q_i and
// every term j of the v×d embeddings ce. With the AVX2 kernel, 16 terms at a
// time (their embeddings laid out dimension by dimension), every query of the
// call passing over a block while it is in the cache: the same values bit for
// bit, each term's sum in the same order with the same roundings.
func euclidRows(dst, ce []float64, v, d int, queries []int) {
	g := v / 16
	if !useEuclidGroups || g == 0 {
		for i, q := range queries {
			a := ce[q*d : (q+1)*d]
			row := dst[i*v : (i+1)*v]
			for j := range row {
				row[j] = euclid(a, ce[j*d:(j+1)*d])
			}
		}
		return
	}
	blk := make([]float64, d*16)
	for b := 0; b < g; b++ {
		for t := 0; t < 16; t++ {
			for k, x := range ce[(b*16+t)*d : (b*16+t+1)*d] {
				blk[k*16+t] = x
			}
		}
		for i, q := range queries {
			euclidGroup(&ce[q*d], d, &blk[0], &dst[i*v+b*16])
		}
	}
	for i, q := range queries {
		a := ce[q*d : (q+1)*d]
		for j := g * 16; j < v; j++ {
			dst[i*v+j] = euclid(a, ce[j*d:(j+1)*d])
		}
	}
}

// OOV method names (§4.4).
const (
	OOVFeature = "feature" // feature-based: t(τ_oov) from the documents holding it
	OOVAvg     = "avg"     // concept-based: centroid of the in-vocabulary terms' CE
)

// oovModel is one of the four OOV models of §4.4 as an eval.OOVModel.
type oovModel struct {
	m       *Model
	name    Variant
	e       *embedder
	feature bool
	docs    map[string][][]int // OOV term → in-vocabulary terms of the documents holding it
}

// OOVEvalModel returns the OOV model name, one of OOVVariants (§4.4, §6.2.4).
//
// The feature-based models need docs: the documents (in-vocabulary terms plus
// OOV terms) in which the OOV terms occur, e.g. the evaluated test documents;
// t(τ_oov) is built from them by features.TermFeatures.OOVTo. Their distance
// follows the paper's stipulation: as an OOV instance is equivalent to a
// negative example, and distance learning pushed negatives as far as possible
// from positives, "its most related in-vocabulary term is the one furthest in
// distance in the CE space". OOVDistances therefore returns the NEGATED
// Euclidean distance −‖CE(x(τ_oov,δ_iv)) − CE(τ_i|δ_iv)‖, so that the usual
// ascending ranking puts the furthest term first.
//
// The concept-based models ignore docs: CE(τ_oov|δ_iv) = (1/m) Σ_i CE(x(τ_i,δ_iv))
// over the m in-vocabulary terms of the document, and the distance is the
// Euclidean distance to each CE(τ_j|δ_iv), divided by τ_j's width when the
// model has term widths (width.go).
func (m *Model) OOVEvalModel(name Variant, docs []eval.OOVDoc) (eval.OOVModel, error) {
	if !name.OOV() {
		return nil, fmt.Errorf("ce: unknown OOV model %q", name)
	}
	feature := name == VariantCEFeature || name == VariantSiameseFeature
	e, err := m.net(name.Network())
	if err != nil {
		return nil, err
	}
	x := &oovModel{m: m, name: name, e: e, feature: feature}
	if feature {
		x.docs = make(map[string][][]int)
		for _, d := range docs {
			for _, t := range d.OOV {
				x.docs[t] = append(x.docs[t], d.Terms)
			}
		}
	}
	return x, nil
}

func (x *oovModel) Name() string   { return string(x.name) }
func (x *oovModel) VocabSize() int { return x.e.v }

// OOVDistances implements eval.OOVModel (see OOVEvalModel for the two methods).
// It is safe for concurrent use; rng is not used.
func (x *oovModel) OOVDistances(term string, ctx []int, _ *rand.Rand, dst []float64) error {
	v, d := x.e.v, x.e.ceDim()
	if len(dst) != v {
		panic(fmt.Sprintf("ce: OOVDistances: len(dst) = %d, want %d", len(dst), v))
	}
	if len(ctx) == 0 {
		return errors.New("ce: OOV term without an in-vocabulary term in its document")
	}
	c := make([]float64, x.m.ctxDim())
	x.m.contextTo(c, ctx)
	ce := make([]float64, v*d)
	x.e.embedVocab(ce, c)
	q := make([]float64, d)
	sign := 1.0
	if x.feature {
		tx := make([]float64, x.m.terms.Dim())
		if err := x.m.terms.OOVTo(tx, x.docs[term]); err != nil {
			return fmt.Errorf("ce: %s: %q: %w", x.name, term, err)
		}
		x.e.embedInput(q, tx, c)
		sign = -1
	} else {
		centroidTo(q, ce, ctx, d)
	}
	for j := range dst {
		dst[j] = sign * euclid(q, ce[j*d:(j+1)*d])
	}
	if !x.feature { // the centroid's distance to each term in units of its width
		toWidths(dst, x.e.invWidth)
	}
	return nil
}

// centroidTo sets dst to the mean of the CE rows of the given terms (the
// concept-based OOV embedding of §4.4).
func centroidTo(dst, ce []float64, terms []int, d int) {
	clear(dst)
	for _, t := range terms {
		for k := range dst {
			dst[k] += ce[t*d+k]
		}
	}
	inv := 1 / float64(len(terms))
	for k := range dst {
		dst[k] *= inv
	}
}

var (
	_ eval.Model    = (*evalModel)(nil)
	_ eval.OOVModel = (*oovModel)(nil)
)
