package app

import (
	"context"
	"strings"
	"testing"
)

func TestSpaceCompute(t *testing.T) {
	terms := []string{"a", "b", "c", "d", "e", "unused"}
	vecs := [][]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1}, {2, 0, 1}, {9, 9, 9}}
	counts := []int{3, 1, 2, 5, 1, 0}
	m, err := Space{Variant: "ce", Projection: ProjectPCA}.Compute(context.Background(), terms, vecs, counts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Terms, ",") != "a,b,c,d,e" || len(m.X) != 5 || len(m.Y) != 5 || m.Docs[3] != 5 {
		t.Fatalf("map %+v: want the five terms with documents, in order, with their counts", m)
	}
	// PCA centres the data: the projected coordinates sum to zero.
	var sx float64
	for _, x := range m.X {
		sx += x
	}
	if sx > 1e-3 || sx < -1e-3 {
		t.Errorf("PCA x coordinates sum to %v, want 0", sx)
	}
	if _, err := (Space{Projection: ProjectPCA}).Compute(context.Background(), terms[:3], vecs[:3], counts[:3], nil); err == nil ||
		!strings.Contains(err.Error(), "at least 4") {
		t.Errorf("three terms: error %v, want one saying a map needs at least 4", err)
	}
}
