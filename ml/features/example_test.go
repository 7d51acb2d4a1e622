package features_test

import (
	"fmt"

	"github.com/taglens/taglens/ml/features"
)

// The Bag-of-Words target of a document (Eq. 4) and its complement, the terms
// a negative example may substitute (§4.3.1).
func ExampleComplement() {
	bow := features.BoW([]int{3, 1, 3})
	fmt.Println(bow, features.Complement(bow, 5))
	// Output:
	// [1 3] [0 2 4]
}

// The idf of §3.1 and the aggregation matrix T of Eq. 2, whose row i is the
// term feature t(τ_i): T_ij = idf_i·idf_j·(documents holding both).
func ExampleTermMatrix() {
	train := [][]int{{0, 1}, {0, 1, 2}, {0, 2}, {1, 3}, {2, 3}, {3}, {1}, {2}}
	df, idf, t := features.TermMatrix(train, 4)
	fmt.Println("df", df)
	fmt.Printf("idf %.3f\n", idf)
	fmt.Printf("t(τ_0) %.3f\n", t.Dense().RawRowView(0))
	// Output:
	// df [3 4 4 3]
	// idf [0.693 0.470 0.470 0.693]
	// t(τ_0) [1.441 0.652 0.652 0.000]
}

// The term features t(τ) of the paper's input (§3.1, §5.2): Eq. 2's rows,
// decorrelated by PCA, each component scaled linearly from its range over the
// training terms onto [−1, +1].
func ExampleFitTerms() {
	train := [][]int{{0, 1}, {0, 1, 2}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {1, 4}, {2, 4}, {0, 4}}
	f, err := features.FitTerms(train, 5, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.V, "terms,", f.Dim(), "features each")
	lo, hi := make([]float64, f.Dim()), make([]float64, f.Dim())
	for tau := range f.V {
		for k, x := range f.Row(tau) {
			lo[k], hi[k] = min(lo[k], x), max(hi[k], x)
		}
	}
	fmt.Printf("ranges: from %.2f to %.2f\n", lo, hi)
	// Output:
	// 5 terms, 4 features each
	// ranges: from [-1.00 -1.00 -1.00 -1.00] to [1.00 1.00 1.00 1.00]
}
