package features

import (
	"math"
	"slices"
	"testing"
)

// TestFitTermsSmooth checks TermOptions.Smooth against a dense reference
// computed from the definitions: idf = log(|Δ|/(1+df)), Eq. 2's T_ij =
// Σ_δ idf_i·idf_j·[i∈δ][j∈δ], each term's strongest associate argmax_{j≠i,
// T_ij>0} T_ij (ties to the smaller index, −1 if none), the smoothed rows
// S(δ)_j = idf_j·(1 if j ∈ δ else α·|{τ ∈ δ : assoc(τ) = j}|) and T' = SᵀS;
// and the OOV row with the same smoothing of the given documents.
// Kept in one function: the expected values are computed by hand step by step
// from the same small corpus, and the steps build on one another.
func TestFitTermsSmooth(t *testing.T) {
	docs := [][]int{{0, 1}, {0, 1}, {1, 2}, {2, 3}, {3}, {4}, {0, 4}, {1}}
	const v, alpha = 5, 0.5
	f, err := FitTerms(docs, v, &TermOptions{Smooth: alpha})
	if err != nil {
		t.Fatal(err)
	}
	n := float64(len(docs))
	idf := make([]float64, v)
	for j := range v {
		df := 0.0
		for _, d := range docs {
			if slices.Contains(d, j) {
				df++
			}
		}
		idf[j] = math.Log(n / (1 + df))
	}
	dense := func(rows [][]float64) [][]float64 {
		out := make([][]float64, v)
		for i := range out {
			out[i] = make([]float64, v)
			for j := range out[i] {
				for _, r := range rows {
					out[i][j] += r[i] * r[j]
				}
			}
		}
		return out
	}
	u := make([][]float64, len(docs))
	for d, doc := range docs {
		u[d] = make([]float64, v)
		for _, j := range doc {
			u[d][j] = idf[j]
		}
	}
	tm := dense(u)
	assoc := make([]int, v)
	for i := range assoc {
		assoc[i] = -1
		for j := range v {
			if j != i && tm[i][j] > 0 && (assoc[i] < 0 || tm[i][j] > tm[i][assoc[i]]) {
				assoc[i] = j
			}
		}
	}
	if !slices.Equal(f.Assoc, assoc) || f.Smooth != alpha {
		t.Fatalf("Assoc = %v, Smooth = %v, want %v, %v", f.Assoc, f.Smooth, assoc, alpha)
	}
	if slices.Equal(assoc, []int{-1, -1, -1, -1, -1}) {
		t.Fatal("the example has no associates: it tests nothing")
	}
	smooth := func(doc []int) []float64 {
		c := make([]float64, v)
		for _, j := range doc {
			c[j] = 1
		}
		for _, j := range doc {
			if a := assoc[j]; a >= 0 && !slices.Contains(doc, a) {
				c[a] += alpha
			}
		}
		return c
	}
	s := make([][]float64, len(docs))
	added := false
	for d, doc := range docs {
		s[d] = smooth(doc)
		for j := range s[d] {
			if s[d][j] == alpha {
				added = true
			}
			s[d][j] *= idf[j]
		}
	}
	if !added {
		t.Fatal("the example smooths no document: it tests nothing")
	}
	want := dense(s)
	got := make([]float64, f.Dim())
	for i := range v {
		var ind []int
		var val []float64
		for j, x := range want[i] {
			if x != 0 {
				ind, val = append(ind, j), append(val, x)
			}
		}
		f.Proj.SparseTransformTo(got, ind, val)
		for k, x := range f.Row(i) {
			if math.Abs(x-got[k]) > 1e-9 {
				t.Fatalf("row %d: scaled feature %d = %v, want %v (T' row %v)", i, k, x, got[k], want[i])
			}
		}
	}
	// OOV term in the documents {1, 2} and {3}.
	oovDocs := [][]int{{1, 2}, {3}}
	ind, val, err := f.OOVRaw(oovDocs)
	if err != nil {
		t.Fatal(err)
	}
	idfOOV := math.Log((n + 2) / 3)
	cnt := make([]float64, v)
	for _, d := range oovDocs {
		for j, c := range smooth(d) {
			cnt[j] += c
		}
	}
	gotOOV := make([]float64, v)
	for k, j := range ind {
		gotOOV[j] = val[k]
	}
	for j := range cnt {
		if w := idfOOV * idf[j] * cnt[j]; math.Abs(gotOOV[j]-w) > 1e-12 {
			t.Errorf("OOVRaw[%d] = %v, want %v", j, gotOOV[j], w)
		}
	}
	// The codec keeps α and the associates.
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g TermFeatures
	if err := g.UnmarshalBinary(b); err != nil || g.Smooth != alpha || !slices.Equal(g.Assoc, f.Assoc) {
		t.Fatalf("round trip: err %v, Smooth %v, Assoc %v", err, g.Smooth, g.Assoc)
	}
}
