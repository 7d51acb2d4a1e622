package server

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"
	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/tsne"
)

// The context map is the paper's Figure 7 (§5.3): one document with an OOV
// tag τ_oov and its in-vocabulary tags δ_iv. Every instance shares the local
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
// EvalModel(v).Distances(δ_iv, queries) gives ‖CE(x(τ_q,δ_iv)) − CE(x(τ_j,δ_iv))‖
// for every vocabulary term j, and OOVEvalModel(v+"-feature").OOVDistances gives
// −‖CE(x(τ_oov,δ_iv)) − CE(x(τ_j,δ_iv))‖. Classical multidimensional scaling
// (Torgerson 1952; Gower 1966) recovers points with exactly these distances
// from the squared-distance matrix D²: B = −½·J·D²·J with J = I − 11ᵀ/n, and
// X = V·Λ^½ over B's positive eigenpairs. Points of a Euclidean space are
// recovered up to a rigid motion, and the recovered coordinates are the
// principal-component scores, so the t-SNE map of X (whose affinities and PCA
// start depend only on distances and principal scores) is the map of the CE
// rows themselves, up to a reflection.

// maxNegatives bounds the negative instances of a context map (a seeded
// sample when the vocabulary is larger; the paper's Figure 7 has 111).
const maxNegatives = 400

// contextMap: GET /api/models/:id/context-map?doc=ID[&corpus=ID][&term=OOV][&variant=]
// → MapData with kinds "positive", "negative", "oov" (feature-based) and
// "oov-avg" (concept-based).
func (h *modelsAPI) contextMap(c echo.Context) error {
	row, m, err := h.s.readyModel(c)
	if err != nil {
		return err
	}
	docID := strings.TrimSpace(c.QueryParam("doc"))
	if docID == "" {
		return httpErr(http.StatusBadRequest, "doc is required")
	}
	variant, err := checkVariant(c.QueryParam("variant"))
	if err != nil {
		return err
	}
	corpusID := c.QueryParam("corpus")
	if corpusID == "" {
		corpusID = row.CorpusID
	}
	ctx := c.Request().Context()
	crow, err := h.s.store.Corpus(ctx, corpusID)
	if err != nil {
		return notFound(err, "corpus", corpusID)
	}
	doc, err := h.s.store.Document(ctx, corpusID, docID)
	if err != nil {
		return notFound(err, "document", docID)
	}
	vocab := m.Vocabulary()
	ids, oov := vocab.Encode(*doc)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	term := strings.TrimSpace(c.QueryParam("term"))
	switch {
	case len(oov) == 0:
		return httpErr(http.StatusUnprocessableEntity, "document %q has no out-of-vocabulary tag", docID)
	case len(ids) == 0:
		return httpErr(http.StatusUnprocessableEntity, "document %q has no in-vocabulary tag: its OOV tags have no context", docID)
	case term == "":
		term = oov[0]
	case !slices.Contains(oov, term):
		return httpErr(http.StatusBadRequest, "%q is not an out-of-vocabulary tag of document %q (those are %s)", term, docID, strings.Join(oov, ", "))
	}
	key := "context|" + row.ID + "|" + variant + "|" + corpusID + "|" + docID + "|" + term
	if e := h.s.maps.get(key); e != nil {
		return serveMap(c, e)
	}
	// t(τ_oov) of the feature-based method comes from every document of the
	// corpus holding τ_oov.
	all, err := h.s.store.Documents(ctx, corpusID)
	if err != nil {
		return err
	}
	var holding []corpus.Document
	for _, d := range all.Docs {
		if hasTag(d.Tags, term) {
			holding = append(holding, d)
		}
	}
	oovDocs, _ := eval.WithOOV(vocab, holding)
	data, err := buildContextMap(ctx, m, variant, doc, crow.Name, ids, term, oovDocs)
	if err != nil {
		return err
	}
	b, err := jsonMarshal(data)
	if err != nil {
		return err
	}
	e := newMapEntry(b, data, nil)
	h.s.maps.put(key, e)
	return serveMap(c, e)
}

// buildContextMap computes the Figure 7 map of OOV tag term in document doc
// (ctxIDs its in-vocabulary term ids, sorted) with the given variant.
func buildContextMap(ctx context.Context, m *ce.Model, variant string, doc *corpus.Document, corpusName string,
	ctxIDs []int, term string, oovDocs []eval.OOVDoc) (*MapData, error) {
	vocab := m.Vocabulary()
	v := vocab.Len()
	// Queries: positives, then negatives (all, or a sample seeded by the document).
	var neg []int
	for j := 0; j < v; j++ {
		if _, found := slices.BinarySearch(ctxIDs, j); !found {
			neg = append(neg, j)
		}
	}
	if len(neg) > maxNegatives {
		hf := fnv.New64a()
		hf.Write([]byte(doc.ID))
		rng := rand.New(rand.NewPCG(hf.Sum64(), 0x666967))
		rng.Shuffle(len(neg), func(a, b int) { neg[a], neg[b] = neg[b], neg[a] })
		neg = neg[:maxNegatives]
		sort.Ints(neg)
	}
	q := append(slices.Clone(ctxIDs), neg...)
	n := len(q) + 1 // + the feature-based OOV instance
	if n < 5 {
		return nil, httpErr(http.StatusUnprocessableEntity, "the vocabulary is too small for a map (%d instances)", n)
	}
	rows := make([]float64, len(q)*v)
	m.EvalModel(variant).Distances(ctxIDs, q, nil, rows)
	om, err := m.OOVEvalModel(variant+"-"+ce.OOVFeature, oovDocs)
	if err != nil {
		return nil, err
	}
	oovRow := make([]float64, v)
	if err := om.OOVDistances(term, ctxIDs, nil, oovRow); err != nil {
		return nil, httpErr(http.StatusUnprocessableEntity, "%v", err)
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
	x, err := classicalMDS(d2, m.CEDim())
	if err != nil {
		return nil, err
	}
	// The concept-based OOV instance: the centroid of the positives' CE, which
	// an affine map (the rigid motion of MDS) keeps a centroid.
	avg := make([]float64, len(x[0]))
	for i := range ctxIDs {
		for k := range avg {
			avg[k] += x[i][k] / float64(len(ctxIDs))
		}
	}
	x = append(x, avg)
	perp := math.Min(30, float64(len(x)-1)/3-0.01)
	emb, err := tsne.Embed(ctx, x, tsne.Options{Perplexity: perp, Seed: 1})
	if err != nil {
		return nil, err
	}
	pts := make([]MapPoint, len(x))
	topic := app.DocumentTopic(m, doc.Tags) // one document: every point shares its context
	for i := range x {
		p := MapPoint{X: app.Round4(emb.Y[i][0]), Y: app.Round4(emb.Y[i][1]), DocID: doc.ID, Corpus: corpusName, Cluster: -1, Topic: topic, Tags: doc.Tags}
		switch {
		case i < len(ctxIDs):
			p.Term, p.Kind = vocab.Term(q[i]), "positive"
		case i < len(q):
			p.Term, p.Kind = vocab.Term(q[i]), "negative"
		case i == len(q):
			p.Term, p.Kind = term, "oov"
		default:
			p.Term, p.Kind = term, "oov-avg"
		}
		pts[i] = p
	}
	return &MapData{Term: term, Variant: variant, Points: pts, KL: emb.KL, Topics: app.NumTopics(m)}, nil
}

// classicalMDS returns points (n rows, at most maxDim columns) whose Euclidean
// distances are the square roots of the entries of d2, a symmetric matrix of
// squared distances with a zero diagonal: B = −½·J·d2·J, J = I − 11ᵀ/n, and
// X = V·Λ^½ over the eigenpairs of B with λ > 1e-10·λ_max (Torgerson 1952).
// Eigenvalues below that (zero up to rounding for Euclidean input) are dropped.
func classicalMDS(d2 *mat.SymDense, maxDim int) ([][]float64, error) {
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
