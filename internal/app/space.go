package app

import (
	"context"
	"fmt"

	"github.com/taglens/taglens/ml/ce"

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
// (ce.Model.TermCentroids), projected to 2-D; parallel arrays, entry i for
// Terms[i], so that a point costs a few bytes on the wire.
type SpaceMap struct {
	Variant    string    `json:"variant"`
	Projection string    `json:"projection"`
	Terms      []string  `json:"terms"`
	Docs       []int     `json:"docs"` // training documents holding the term
	X          []float64 `json:"x"`
	Y          []float64 `json:"y"`
	KL         float64   `json:"kl,omitempty"` // t-SNE's final KL divergence
	// Topic[i] is term i's LDA topic (TermTopic) of the model's Topics; both
	// are missing from maps stored before the maps had topics.
	Topic  []int `json:"topic,omitempty"`
	Topics int   `json:"topics,omitempty"`
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

// Compute projects the centroids vecs of the terms (counts[t]: the training
// documents holding term t; terms without any are left out) and returns the
// map with coordinates rounded by Round4. progress, if not nil, receives the
// fraction done, a stage and a message.
func (s Space) Compute(ctx context.Context, terms []string, vecs [][]float64, counts []int, progress Progress) (*SpaceMap, error) {
	if progress == nil {
		progress = func(float64, string, string) {}
	}
	var keep []int // terms with at least one training document
	for t, n := range counts {
		if n > 0 {
			keep = append(keep, t)
		}
	}
	if len(keep) < 4 {
		return nil, fmt.Errorf("the model has %d terms with training documents; a map needs at least 4", len(keep))
	}
	x := make([][]float64, len(keep))
	out := &SpaceMap{Variant: s.Variant, Projection: s.Projection, Terms: make([]string, len(keep)), Docs: make([]int, len(keep)),
		X: make([]float64, len(keep)), Y: make([]float64, len(keep))}
	for i, t := range keep {
		x[i] = vecs[t]
		out.Terms[i], out.Docs[i] = terms[t], counts[t]
	}
	var y [][]float64
	var err error
	switch s.Projection {
	case ProjectPCA:
		progress(0.5, "pca", fmt.Sprintf("PCA of %d terms", len(x)))
		if y, err = PCA2(x); err != nil {
			return nil, err
		}
	default:
		emb, err := MapTSNE(ctx, x, "terms", s.Perplexity, s.Iterations, s.Seed, progress)
		if err != nil {
			return nil, err
		}
		y, out.KL = emb.Y, emb.KL
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range y {
		out.X[i], out.Y[i] = Round4(y[i][0]), Round4(y[i][1])
	}
	return out, nil
}

// PCA2 projects the rows of x onto their first two principal components.
func PCA2(x [][]float64) ([][]float64, error) {
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
	y := make([][]float64, n)
	for i, r := range x {
		y[i] = make([]float64, 2)
		for c := 0; c < k; c++ {
			var s float64
			for j, v := range r {
				s += (v - means[j]) * vecs.At(j, c)
			}
			y[i][c] = s
		}
	}
	return y, nil
}
