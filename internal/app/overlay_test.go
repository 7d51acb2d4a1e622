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
