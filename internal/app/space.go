package app

import (
	"context"
	"fmt"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/tsne"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Projections of the whole-space map.
const (
	ProjectTSNE = "tsne"
	ProjectPCA  = "pca"
)

// SpaceMap is the whole-space map of a model: one point per vocabulary term
// with training documents, the mean of the term's CE over them
// (ce.Model.TermCentroids), projected to 2-D, then the tags of the corpus
// outside the vocabulary placed in it (OOVFrom); parallel arrays, entry i for
// Terms[i], so that a point costs a few bytes on the wire.
type SpaceMap struct {
	Variant    string    `json:"variant"`
	Projection string    `json:"projection"`
	Terms      []string  `json:"terms"`
	Docs       []int     `json:"docs"` // training documents holding the term
	X          []float64 `json:"x"`
	Y          []float64 `json:"y"`
	KL         float64   `json:"kl,omitempty"` // t-SNE's final KL divergence
	// Perplexity and Iterations are what t-SNE used (the perplexity after
	// its cap at (n−1)/3); missing from PCA maps and maps stored before.
	Perplexity float64 `json:"perplexity,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	// Topic[i] is term i's LDA topic (TermTopic) of the model's Topics; both
	// are missing from maps stored before the maps had topics.
	Topic  []int `json:"topic,omitempty"`
	Topics int   `json:"topics,omitempty"`
	// OOVFrom, when positive, is the index of the first tag outside the
	// vocabulary: entries OOVFrom… are such tags of the corpus's documents,
	// each the mean of its feature-based CE over the documents holding it
	// (ce.Model.OOVCentroids; Docs counts those documents), placed in the
	// map of the vocabulary without moving it (t-SNE's Transform, or PCA's
	// axes).
	OOVFrom int `json:"oov_from,omitempty"`
	// Emb is the t-SNE embedding of the vocabulary's points (nil for PCA):
	// what InstanceSpace places the instances in. Not part of the JSON.
	Emb *tsne.Embedding `json:"-"`
}

// SpaceTerms are points of a whole-space map before projection: names,
// centroids and the documents each centroid averages over, parallel.
type SpaceTerms struct {
	Terms  []string
	Vecs   [][]float64
	Counts []int
}

// SetTopics gives every term of the map its LDA topic under model m.
func (sm *SpaceMap) SetTopics(m *ce.Model) {
	sm.Topics = NumTopics(m)
	sm.Topic = make([]int, len(sm.Terms))
	for i, t := range sm.Terms {
		sm.Topic[i] = TermTopic(m, t)
	}
}

// Space is the whole-space map use case: which embedding, which projection
// (ProjectTSNE or ProjectPCA) and t-SNE's controls (perplexity 0: MapTSNE's
// rule).
type Space struct {
	Variant, Projection string
	Perplexity          float64
	Iterations          int
	Seed                uint64
}

// Compute projects the vocabulary's term centroids (terms without training
// documents, Counts 0, are left out) and returns the map with coordinates
// rounded by Round4; then it places the tags outside the vocabulary, oov
// (may be empty), in that map without moving it: by t-SNE's Transform from
// the embedding of the vocabulary (seeded like it), or on the same principal
// axes. progress, if not nil, receives the fraction done, a stage and a
// message.
func (s Space) Compute(ctx context.Context, vocab, oov SpaceTerms, progress Progress) (*SpaceMap, error) {
	if progress == nil {
		progress = func(float64, string, string) {}
	}
	var keep []int // terms with at least one training document
	for t, n := range vocab.Counts {
		if n > 0 {
			keep = append(keep, t)
		}
	}
	if len(keep) < 4 {
		return nil, fmt.Errorf("the model has %d terms with training documents; a map needs at least 4", len(keep))
	}
	n := len(keep) + len(oov.Terms)
	x := make([][]float64, len(keep))
	out := &SpaceMap{Variant: s.Variant, Projection: s.Projection, Terms: make([]string, 0, n), Docs: make([]int, 0, n),
		X: make([]float64, 0, n), Y: make([]float64, 0, n)}
	for i, t := range keep {
		x[i] = vocab.Vecs[t]
		out.Terms, out.Docs = append(out.Terms, vocab.Terms[t]), append(out.Docs, vocab.Counts[t])
	}
	var y, yOOV [][]float64
	var err error
	switch s.Projection {
	case ProjectPCA:
		progress(0.5, "pca", fmt.Sprintf("PCA of %d terms", len(x)))
		var project func([]float64) []float64
		if project, err = pcaAxes(x); err != nil {
			return nil, err
		}
		for _, r := range x {
			y = append(y, project(r))
		}
		for _, r := range oov.Vecs {
			yOOV = append(yOOV, project(r))
		}
	default:
		emb, err := MapTSNE(ctx, x, "terms", s.Perplexity, s.Iterations, s.Seed, progress)
		if err != nil {
			return nil, err
		}
		y, out.KL, out.Perplexity, out.Iterations, out.Emb = emb.Y, emb.KL, Round4(emb.Perplexity), emb.Iterations, emb
		if len(oov.Vecs) > 0 {
			progress(0.96, "tsne", fmt.Sprintf("placing %d tags outside the vocabulary", len(oov.Vecs)))
			if yOOV, err = PlaceTSNE(ctx, emb, oov.Vecs, s.Seed); err != nil {
				return nil, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, p := range y {
		out.X, out.Y = append(out.X, Round4(p[0])), append(out.Y, Round4(p[1]))
	}
	if len(oov.Terms) > 0 {
		out.OOVFrom = len(out.Terms)
		out.Terms, out.Docs = append(out.Terms, oov.Terms...), append(out.Docs, oov.Counts...)
		for _, p := range yOOV {
			out.X, out.Y = append(out.X, Round4(p[0])), append(out.Y, Round4(p[1]))
		}
	}
	return out, nil
}

// pcaAxes returns the projection of a vector onto the first two principal
// components of the rows of x (centred on their mean). It is an exact PCA
// (gonum's stat.PC, the SVD of the centred rows), not internal/linalg's
// randomized one: x's rows are term centroids of the CE width (10 or 50
// columns by default), small enough to factor exactly.
func pcaAxes(x [][]float64) (func([]float64) []float64, error) {
	n, d := len(x), len(x[0])
	a := mat.NewDense(n, d, nil)
	for i, r := range x {
		a.SetRow(i, r)
	}
	var pc stat.PC
	if !pc.PrincipalComponents(a, nil) {
		return nil, fmt.Errorf("PCA of %d×%d did not converge", n, d)
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	k := min(2, d)
	means := make([]float64, d)
	for j := range d {
		means[j] = stat.Mean(mat.Col(nil, j, a), nil)
	}
	return func(r []float64) []float64 {
		y := make([]float64, 2)
		for c := 0; c < k; c++ {
			var s float64
			for j, v := range r {
				s += (v - means[j]) * vecs.At(j, c)
			}
			y[c] = s
		}
		return y
	}, nil
}
