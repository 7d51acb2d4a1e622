package features

import (
	"math"
	"slices"
	"testing"
)

// handDocs is the 3-document example of the tests. Hand computation (§3.1):
// |Δ| = 3, df = [1, 3, 1, 1], so idf = [log(3/2), log(3/4), log(3/2), log(3/2)].
// Co-occurrence counts: C = diag(df) plus C01 = C12 = C13 = 1 (symmetric).
var handDocs = [][]int{{0, 1}, {1, 2}, {3, 1, 1}} // repeated term counts once

func TestIDFHand(t *testing.T) {
	df := DocFreq(handDocs, 4)
	if want := []int{1, 3, 1, 1}; !slices.Equal(df, want) {
		t.Fatalf("df: got %v, want %v", df, want)
	}
	idf := IDF(3, df)
	want := []float64{math.Log(1.5), math.Log(0.75), math.Log(1.5), math.Log(1.5)}
	for i := range want {
		if math.Abs(idf[i]-want[i]) > 1e-15 {
			t.Errorf("idf[%d]: got %v, want %v", i, idf[i], want[i])
		}
	}
}

func TestTermMatrixHand(t *testing.T) {
	a, b := math.Log(1.5), math.Log(0.75)
	// Eq. 2 by hand: T_ij = Σ_δ tfidf(i,δ)·tfidf(j,δ) = idf_i·idf_j·C_ij.
	want := [][]float64{
		{a * a, a * b, 0, 0},
		{a * b, 3 * b * b, a * b, a * b},
		{0, a * b, a * a, 0},
		{0, a * b, 0, a * a},
	}
	_, _, tm := TermMatrix(handDocs, 4)
	for i := range want {
		for j := range want[i] {
			if got := tm.At(i, j); math.Abs(got-want[i][j]) > 1e-14 {
				t.Errorf("T[%d][%d]: got %v, want %v", i, j, got, want[i][j])
			}
		}
	}
	// zero entries are not stored: 4 diagonal + 6 off-diagonal.
	if tm.NNZ() != 10 {
		t.Errorf("nnz: got %d, want 10", tm.NNZ())
	}
}

func TestBoW(t *testing.T) {
	tests := []struct {
		doc, bow, comp []int
	}{
		{[]int{3, 1, 3, 0}, []int{0, 1, 3}, []int{2, 4}},
		{nil, []int{}, []int{0, 1, 2, 3, 4}},
		{[]int{4, 2, 0, 1, 3}, []int{0, 1, 2, 3, 4}, []int{}},
	}
	for _, tc := range tests {
		got := BoW(tc.doc)
		if !slices.Equal(got, tc.bow) {
			t.Errorf("BoW(%v): got %v, want %v", tc.doc, got, tc.bow)
		}
		if c := Complement(got, 5); !slices.Equal(c, tc.comp) {
			t.Errorf("Complement(%v): got %v, want %v", got, c, tc.comp)
		}
		dst := make([]float64, 5)
		BoWTo(dst, got)
		for i, v := range dst {
			want := -1.0
			if slices.Contains(tc.bow, i) {
				want = 1
			}
			if v != want {
				t.Errorf("BoWTo(%v)[%d]: got %v, want %v", got, i, v, want)
			}
		}
	}
}
