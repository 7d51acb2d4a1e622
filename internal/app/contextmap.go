package app

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/tsne"
)

// ContextMap is the paper's Figure 7 (§5.3): one document with an OOV tag
// τ_oov and its in-vocabulary tags δ_iv. Every instance shares the local
// context δ_iv:
//
//	positive instances  CE(τ_i | δ_iv) for τ_i ∈ δ_iv
//	negative instances  CE(x(τ_j, δ_iv)) for the other vocabulary terms τ_j ∉ δ_iv (§4.3.1)
//	the OOV instance    CE(x(τ_oov, δ_iv)) with the feature-based t(τ_oov) built
//	                    from the corpus's documents holding τ_oov (§4.4), and the
//	                    concept-based one, the centroid of the positives (§4.4)
//
// ml/ce exposes no CE vectors of arbitrary terms in a given context, but its
// eval models return the Euclidean distances between exactly these CE rows:
// CentreModel(v).Distances(δ_iv, queries) gives ‖CE(x(τ_q,δ_iv)) − CE(x(τ_j,δ_iv))‖
// for every vocabulary term j, and OOVEvalModel(v+"-feature").OOVDistances gives
// −‖CE(x(τ_oov,δ_iv)) − CE(x(τ_j,δ_iv))‖. Classical multidimensional scaling
// (Torgerson 1952; Gower 1966) recovers points with exactly these distances
// from the squared-distance matrix D²: B = −½·J·D²·J with J = I − 11ᵀ/n, and
// X = V·Λ^½ over B's positive eigenpairs. Points of a Euclidean space are
// recovered up to a rigid motion, and the recovered coordinates are the
// principal-component scores, so the t-SNE map of X (whose affinities and PCA
// start depend only on distances and principal scores) is the map of the CE
// rows themselves, up to a reflection.
type ContextMap struct {
	Model   *ce.Model
	Variant ce.Variant      // ce.VariantCE or ce.VariantSiamese
	Doc     corpus.Document // the document
	Corpus  string          // the name of its corpus, for the points
	// Term is the OOV tag to place; Check sets it to the document's first OOV
	// tag when it is empty.
	Term string
	// Holding are the documents of the corpus that hold Term: the
	// feature-based t(τ_oov) is built from them (§4.4).
	Holding []corpus.Document
	// Perplexity and Iterations are what t-SNE used (set by Compute).
	Perplexity float64
	Iterations int

	ctxIDs []int // δ_iv as sorted term ids (Check)
}

// MaxNegatives bounds the negative instances of a context map (a sample,
// seeded by the document id, when the vocabulary is larger; the paper's
// Figure 7 has 111).
const MaxNegatives = 400

// Check finds the document's in-vocabulary and OOV tags, sets Term to the
// first OOV tag when it is empty, and reports a *MapError when the document
// has no OOV or no in-vocabulary tag, an *InputError when Term is not one of
// its OOV tags.
func (cm *ContextMap) Check() error {
	ids, oov := cm.Model.Vocabulary().Encode(cm.Doc)
	slices.Sort(ids)
	cm.ctxIDs = slices.Compact(ids)
	switch {
	case len(oov) == 0:
		return &MapError{fmt.Sprintf("document %q has no out-of-vocabulary tag", cm.Doc.ID)}
	case len(cm.ctxIDs) == 0:
		return &MapError{fmt.Sprintf("document %q has no in-vocabulary tag: its OOV tags have no context", cm.Doc.ID)}
	case cm.Term == "":
		cm.Term = oov[0]
	case !slices.Contains(oov, cm.Term):
		return &InputError{Field: "term", Reason: fmt.Sprintf("%q is not an out-of-vocabulary tag of document %q (those are %s)",
			cm.Term, cm.Doc.ID, strings.Join(oov, ", "))}
	}
	return nil
}

// Compute returns the points of the map, rounded to four decimals (kinds
// "positive", "negative", "oov" for the feature-based OOV instance and
// "oov-avg" for the concept-based one), and t-SNE's final KL. It calls Check
// first.
func (cm *ContextMap) Compute(ctx context.Context) ([]MapPoint, float64, error) {
	if err := cm.Check(); err != nil {
		return nil, 0, err
	}
	oovDocs, _ := eval.WithOOV(cm.Model.Vocabulary(), cm.Holding)
	q := append(slices.Clone(cm.ctxIDs), cm.negatives()...)
	x, err := cm.instances(q, oovDocs)
	if err != nil {
		return nil, 0, err
	}
	perp := math.Min(30, float64(len(x)-1)/3-0.01)
	emb, err := tsne.Embed(ctx, x, tsne.Options{Perplexity: perp, Seed: 1})
	if err != nil {
		return nil, 0, err
	}
	cm.Perplexity, cm.Iterations = Round4(emb.Perplexity), emb.Iterations
	vocab := cm.Model.Vocabulary()
	topic := DocumentTopic(cm.Model, cm.Doc.Tags) // one document: every point shares its context
	pts := make([]MapPoint, len(x))
	for i := range x {
		p := MapPoint{X: Round4(emb.Y[i][0]), Y: Round4(emb.Y[i][1]), DocID: cm.Doc.ID, Corpus: cm.Corpus, Cluster: -1, Topic: topic, Tags: cm.Doc.Tags}
		switch {
		case i < len(cm.ctxIDs):
			p.Term, p.Kind = vocab.Term(q[i]), "positive"
		case i < len(q):
			p.Term, p.Kind = vocab.Term(q[i]), "negative"
		case i == len(q):
			p.Term, p.Kind = cm.Term, "oov"
		default:
			p.Term, p.Kind = cm.Term, "oov-avg"
		}
		pts[i] = p
	}
	return pts, emb.KL, nil
}

// negatives returns the vocabulary terms outside δ_iv: all of them, or
// MaxNegatives drawn with a seed from the document id.
func (cm *ContextMap) negatives() []int {
	var neg []int
	for j := 0; j < cm.Model.Vocabulary().Len(); j++ {
		if _, found := slices.BinarySearch(cm.ctxIDs, j); !found {
			neg = append(neg, j)
		}
	}
	if len(neg) > MaxNegatives {
		hf := fnv.New64a()
		hf.Write([]byte(cm.Doc.ID))
		rng := rand.New(rand.NewPCG(hf.Sum64(), 0x666967))
		rng.Shuffle(len(neg), func(a, b int) { neg[a], neg[b] = neg[b], neg[a] })
		neg = neg[:MaxNegatives]
		sort.Ints(neg)
	}
	return neg
}

// instances returns the points, in CE-layer coordinates up to a rigid
// motion, of the queries q (positives then negatives), the feature-based OOV
// instance and the concept-based one, recovered by classical MDS from their
// distances.
func (cm *ContextMap) instances(q []int, oovDocs []eval.OOVDoc) ([][]float64, error) {
	v := cm.Model.Vocabulary().Len()
	n := len(q) + 1 // + the feature-based OOV instance
	if n < 5 {
		return nil, &MapError{fmt.Sprintf("the vocabulary is too small for a map (%d instances)", n)}
	}
	rows := make([]float64, len(q)*v)
	cm.Model.CentreModel(cm.Variant).Distances(cm.ctxIDs, q, nil, rows)
	om, err := cm.Model.OOVEvalModel(cm.Variant.WithOOV(ce.OOVFeature), oovDocs)
	if err != nil {
		return nil, err
	}
	oovRow := make([]float64, v)
	if err := om.OOVDistances(cm.Term, cm.ctxIDs, nil, oovRow); err != nil {
		return nil, &MapError{err.Error()}
	}
	d2 := mat.NewSymDense(n, nil)
	for a := range q {
		for b := a + 1; b < len(q); b++ {
			d := rows[a*v+q[b]]
			d2.SetSym(a, b, d*d)
		}
		d := oovRow[q[a]] // negated by the feature-based method: the square undoes it
		d2.SetSym(a, n-1, d*d)
	}
	x, err := ClassicalMDS(d2, cm.Model.CEDim())
	if err != nil {
		return nil, err
	}
	// The concept-based OOV instance: the centroid of the positives' CE, which
	// an affine map (the rigid motion of MDS) keeps a centroid.
	avg := make([]float64, len(x[0]))
	for i := range cm.ctxIDs {
		for k := range avg {
			avg[k] += x[i][k] / float64(len(cm.ctxIDs))
		}
	}
	return append(x, avg), nil
}

// ClassicalMDS returns points (n rows, at most maxDim columns) whose Euclidean
// distances are the square roots of the entries of d2, a symmetric matrix of
// squared distances with a zero diagonal: B = −½·J·d2·J, J = I − 11ᵀ/n, and
// X = V·Λ^½ over the eigenpairs of B with λ > 1e-10·λ_max (Torgerson 1952).
// Eigenvalues below that (zero up to rounding for Euclidean input) are dropped.
// It is the exact eigendecomposition of the small n×n matrix B (n is the
// number of map instances), not a truncated SVD of data, so it does not use
// internal/linalg's randomized SVD.
func ClassicalMDS(d2 *mat.SymDense, maxDim int) ([][]float64, error) {
	n := d2.SymmetricDim()
	rowMean := make([]float64, n)
	var all float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			rowMean[i] += d2.At(i, j)
		}
		all += rowMean[i]
		rowMean[i] /= float64(n)
	}
	all /= float64(n * n)
	b := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			b.SetSym(i, j, -0.5*(d2.At(i, j)-rowMean[i]-rowMean[j]+all))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(b, true) {
		return nil, fmt.Errorf("context map: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := vals[n-1]
	var cols []int
	for k := n - 1; k >= 0 && len(cols) < maxDim; k-- {
		if vals[k] > 1e-10*top && vals[k] > 0 {
			cols = append(cols, k)
		}
	}
	if len(cols) == 0 {
		cols = []int{n - 1} // all points coincide: one zero column
	}
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, len(cols))
		for c, k := range cols {
			x[i][c] = vecs.At(i, k) * math.Sqrt(math.Max(vals[k], 0))
		}
	}
	return x, nil
}
