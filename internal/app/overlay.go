package app

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/tsne"
)

// OverlayDoc is a document added to a term map: its id, its corpus's name
// and its tags.
type OverlayDoc struct {
	ID     string
	Corpus string
	Tags   []string
}

// OverlayPoints returns the points that document d adds to a term map whose
// instance terms are base, not yet placed, with their CE vectors under the
// variant: its other vocabulary terms (kind "accompany") and its tags outside
// the vocabulary (kind "oov", the concept-based CE of §4.4). The error is
// ce.Model.EmbedDocument's.
func OverlayPoints(m *ce.Model, variant ce.Variant, d OverlayDoc, base map[string]bool) ([]MapPoint, [][]float64, error) {
	ids, oov, vecs, oovVecs, err := m.EmbedDocument(variant, d.Tags)
	if err != nil {
		return nil, nil, err
	}
	topic := DocumentTopic(m, d.Tags)
	var pts []MapPoint
	var x [][]float64
	for i, tid := range ids {
		t := m.Vocabulary().Term(tid)
		if base[t] {
			continue // already in the base map
		}
		pts = append(pts, MapPoint{Term: t, DocID: d.ID, Kind: "accompany", Corpus: d.Corpus, Cluster: -1, Topic: topic, Tags: d.Tags})
		x = append(x, vecs[i])
	}
	for i, t := range oov {
		pts = append(pts, MapPoint{Term: t, DocID: d.ID, Kind: "oov", Corpus: d.Corpus, Cluster: -1, Topic: topic, Tags: d.Tags})
		x = append(x, oovVecs[i])
	}
	return pts, x, nil
}

// PlaceOverlay places the overlay points pts, of CE vectors x, in the map emb
// (PlaceTSNE with seed 1): the map's points stay fixed, so an overlay never
// moves what the user saw. Coordinates are rounded (Round4).
func PlaceOverlay(ctx context.Context, emb *tsne.Embedding, pts []MapPoint, x [][]float64) error {
	y, err := PlaceTSNE(ctx, emb, x, 1)
	if err != nil {
		return err
	}
	for i := range pts {
		pts[i].X, pts[i].Y = Round4(y[i][0]), Round4(y[i][1])
	}
	return nil
}

// SetMapTopics gives every point of a term map its document's LDA topic
// under model m (DocumentTopic, once per document: corpus and id) and returns
// the number of topics: what a map stored before the maps had topics lacks.
func SetMapTopics(m *ce.Model, pts []MapPoint) int {
	topics := map[[2]string]int{}
	for i, p := range pts {
		key := [2]string{p.Corpus, p.DocID}
		k, ok := topics[key]
		if !ok {
			k = DocumentTopic(m, p.Tags)
			topics[key] = k
		}
		pts[i].Topic = k
	}
	return NumTopics(m)
}

// Neighbour is one of a term's nearest terms in the whole space.
type Neighbour struct {
	Term     string  `json:"term"`
	Distance float64 `json:"distance"`
}

// Distances between centroids (NearestTermsBy).
const (
	MetricEuclidean = "euclidean"
	MetricCosine    = "cosine"
)

// NearestTerms lists the k terms nearest to the centroid q by Euclidean
// distance (NearestTermsBy).
func NearestTerms(terms []string, vecs [][]float64, counts []int, q []float64, t, k int) []Neighbour {
	return NearestTermsBy(MetricEuclidean, terms, vecs, counts, q, t, k)
}

// NearestTermsBy lists the k terms nearest to the centroid q by metric
// (MetricEuclidean, or MetricCosine: 1 − the cosine of the angle, 1 for a
// zero vector), nearest first, ties in term order, distances rounded
// (Round4): terms, vecs and counts are parallel (the terms' centroids and
// the training documents each averages over); terms without documents, and
// term t (−1: none), are left out.
func NearestTermsBy(metric string, terms []string, vecs [][]float64, counts []int, q []float64, t, k int) []Neighbour {
	var all []Neighbour // in term order, so that the stable sort keeps ties so
	qn := norm(q)
	for u, v := range vecs {
		if u == t || counts[u] == 0 {
			continue
		}
		var d float64
		if metric == MetricCosine {
			var dot float64
			for j, a := range v {
				dot += a * q[j]
			}
			d = 1
			if vn := norm(v); vn > 0 && qn > 0 {
				d = 1 - dot/(vn*qn)
			}
		} else {
			var s float64
			for j, a := range v {
				e := a - q[j]
				s += e * e
			}
			d = math.Sqrt(s)
		}
		all = append(all, Neighbour{Term: terms[u], Distance: d})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Distance < all[j].Distance })
	all = all[:min(k, len(all))]
	for i := range all {
		all[i].Distance = Round4(all[i].Distance)
	}
	return slices.Clip(all)
}

func norm(v []float64) float64 {
	var s float64
	for _, a := range v {
		s += a * a
	}
	return math.Sqrt(s)
}
