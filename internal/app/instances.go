package app

import (
	"context"
	"fmt"
	"math"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/tsne"
)

// InstanceSpace is the map of every instance of a model: each (document,
// vocabulary term) pair of its training documents, the term's CE in the
// document's context (ce.Model.EmbedDocument, the figures of every other
// map), placed into the whole-space map of the term centroids by t-SNE's
// Transform (PlaceTSNE): the whole-space map's terms stay where they are and
// each instance lands near the centroids its CE is closest to.
//
// The CE vectors are streamed: documents are embedded a batch of Batch
// instances at a time and each batch is placed before the next is made, so
// that memory holds one batch of vectors and the columns of the result (18
// bytes an instance), never every vector.
type InstanceSpace struct {
	Model   *ce.Model
	Variant ce.Variant
	// Emb is the whole-space map's t-SNE embedding (Space.Compute's
	// SpaceMap.Emb); Seed seeds the placement.
	Emb  *tsne.Embedding
	Seed uint64
	// Batch is the instances placed at once (default 4096); MaxPoints caps
	// the instances (default 1,000,000): beyond it every k-th document is
	// taken, k the smallest stride that fits.
	Batch, MaxPoints int
	// Iterations of Transform for each instance (0: Transform's 250).
	Iterations int
	Progress   Progress
}

// Instances is the columns of an instance map, entry i for instance i:
// coordinates, the term (vocabulary id), the document (index into the
// documents given to Compute) and the document's LDA topic (DocumentTopic,
// −1: none).
type Instances struct {
	X, Y   []float32
	Term   []uint32
	Doc    []uint32
	Topic  []int16
	Stride int // every Stride-th document was taken (1: all)
}

// CountInstances returns the number of in-vocabulary tags of docs (the
// instances of an instance map over them), distinct per document.
func CountInstances(m *ce.Model, docs [][]string) int {
	v := m.Vocabulary()
	n := 0
	seen := map[int]bool{}
	for _, tags := range docs {
		clear(seen)
		for _, t := range tags {
			if id, ok := v.ID(t); ok && !seen[id] {
				seen[id] = true
				n++
			}
		}
	}
	return n
}

// Compute embeds and places every instance of docs (the model's training
// documents), in document order and, within a document, in vocabulary order.
// It stops with ctx's error when ctx is cancelled.
func (s InstanceSpace) Compute(ctx context.Context, docs [][]string) (*Instances, error) {
	if s.Emb == nil {
		return nil, fmt.Errorf("instance map: no whole-space embedding to place the instances in")
	}
	progress := s.Progress
	if progress == nil {
		progress = func(float64, string, string) {}
	}
	batch := s.Batch
	if batch <= 0 {
		batch = 4096
	}
	maxPts := s.MaxPoints
	if maxPts <= 0 {
		maxPts = 1000000
	}
	total := CountInstances(s.Model, docs)
	stride := 1
	if total > maxPts {
		stride = int(math.Ceil(float64(total) / float64(maxPts)))
	}
	want := total / stride
	out := &Instances{Stride: stride, X: make([]float32, 0, want), Y: make([]float32, 0, want),
		Term: make([]uint32, 0, want), Doc: make([]uint32, 0, want), Topic: make([]int16, 0, want)}
	vecs := make([][]float64, 0, batch)
	perp := math.Min(5, float64(len(s.Emb.Y)-1)/3)
	opt := tsne.Options{Perplexity: perp, Seed: s.Seed, Iterations: s.Iterations}
	place := func() error {
		if len(vecs) == 0 {
			return nil
		}
		// New points do not interact in Transform: a batch's placement does
		// not depend on the other batches.
		y, err := s.Emb.Transform(ctx, vecs, opt)
		if err != nil {
			return err
		}
		for _, p := range y {
			out.X, out.Y = append(out.X, float32(p[0])), append(out.Y, float32(p[1]))
		}
		vecs = vecs[:0]
		progress(0.05+0.93*float64(len(out.X))/float64(max(1, want)), "placing",
			fmt.Sprintf("%d of about %d instances placed", len(out.X), want))
		return nil
	}
	for i := 0; i < len(docs); i += stride {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ids, _, ce, _, err := s.Model.EmbedDocument(s.Variant, docs[i])
		if err != nil || len(ids) == 0 {
			continue // no vocabulary tag: no instance
		}
		topic := int16(DocumentTopic(s.Model, docs[i]))
		for k, id := range ids {
			vecs = append(vecs, ce[k])
			out.Term = append(out.Term, uint32(id))
			out.Doc = append(out.Doc, uint32(i))
			out.Topic = append(out.Topic, topic)
		}
		if len(vecs) >= batch {
			if err := place(); err != nil {
				return nil, err
			}
		}
	}
	if err := place(); err != nil {
		return nil, err
	}
	return out, nil
}
