package app

import (
	"reflect"
	"testing"
)

// TestNearestTerms: on four centroids in a line, the nearest terms of a point
// come nearest first with ties in term order, leave out the query's own term
// and terms without documents, stop at k and round their distances.
func TestNearestTerms(t *testing.T) {
	terms := []string{"a", "b", "c", "d", "e"}
	vecs := [][]float64{{0, 0}, {1, 0}, {-1, 0}, {2, 0}, {0.5, 0}}
	counts := []int{3, 1, 2, 4, 0} // "e" has no training document
	got := NearestTerms(terms, vecs, counts, vecs[0], 0, 3)
	want := []Neighbour{{"b", 1}, {"c", 1}, {"d", 2}} // b and c tie: term order
	if !reflect.DeepEqual(got, want) {
		t.Errorf("neighbours of a: %v, want %v", got, want)
	}
	got = NearestTerms(terms, vecs, counts, []float64{0, 1.0 / 3}, -1, 10)
	want = []Neighbour{{"a", 0.3333}, {"b", 1.0541}, {"c", 1.0541}, {"d", 2.0276}} // √(1+1/9), √(4+1/9)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("neighbours of an outside point: %v, want %v", got, want)
	}
}

// TestNearestTermsCosine: by cosine distance a term far along the query's
// direction is nearer than one close by at an angle, and a zero centroid is
// at distance 1.
func TestNearestTermsCosine(t *testing.T) {
	terms := []string{"q", "far", "near", "zero", "opposite"}
	vecs := [][]float64{{1, 0}, {10, 0.5}, {0.6, 0.8}, {0, 0}, {-1, 0}}
	counts := []int{1, 1, 1, 1, 1}
	got := NearestTermsBy(MetricCosine, terms, vecs, counts, vecs[0], 0, 4)
	want := []Neighbour{{"far", 0.0012}, {"near", 0.4}, {"zero", 1}, {"opposite", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cosine neighbours of q: %v, want %v", got, want)
	}
	if e := NearestTermsBy(MetricEuclidean, terms, vecs, counts, vecs[0], 0, 1); e[0].Term != "near" {
		t.Errorf("Euclidean nearest of q: %v, want near", e)
	}
}
