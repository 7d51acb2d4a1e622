package baselines_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/taglens/taglens/ml/baselines"
)

// The tags of a few songs, encoded as indices into terms.
var (
	terms = []string{"rock", "guitar", "drums", "loud", "jazz", "piano", "saxophone", "swing", "live"}
	songs = [][]int{
		{0, 1, 2}, {0, 1, 3}, {0, 1}, {0, 1, 2, 3}, {1, 2}, {0, 2}, {2, 3}, {0, 1, 2},
		{4, 5, 6}, {4, 5}, {4, 5, 7}, {5, 6}, {4, 6, 7}, {4, 5, 6, 7}, {6, 7}, {4, 7},
		{0, 3, 8}, {4, 7, 8},
	}
	validSongs = [][]int{{0, 1, 2}, {4, 5, 6}, {0, 1, 3}, {4, 6, 7}}
)

// nearest returns the k terms of smallest distance in row, ties in term order,
// leaving out the given ones.
func nearest(row []float64, k int, leave ...int) string {
	idx := make([]int, len(row))
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(row[a], row[b]) })
	var out []string
	for _, j := range idx {
		if !slices.Contains(leave, j) {
			out = append(out, terms[j])
		}
	}
	return strings.Join(out[:k], " ")
}

// LSA, one of the paper's baselines: fitted on the training documents with the
// default options (the zero LSAOptions: 90 % of the variance), it ranks every
// term by its cosine distance to a query term.
func ExampleFitLSA() {
	m, err := baselines.FitLSA(context.Background(), songs, len(terms), baselines.LSAOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name(), "keeps", m.Dim, "of", len(terms), "dimensions")
	row := make([]float64, len(terms))
	for _, q := range []int{0, 5} { // rock, piano
		m.Distances(nil, []int{q}, nil, row)
		fmt.Printf("closest to %s: %s\n", terms[q], nearest(row, 3, q))
	}
	// Output:
	// lsa keeps 6 of 9 dimensions
	// closest to rock: guitar drums loud
	// closest to piano: jazz saxophone swing
}

// EASE^R, the recommender to beat: λ is tuned on the validation documents of
// Data, and the fit serves two rankings, under the paper's Eq. 9 (ease) and by
// its own score (ease-score, an eval.ListModel).
func ExampleFitEASE() {
	d := baselines.Data{Train: songs, Valid: validSongs, V: len(terms)}
	m, s, err := baselines.FitEASE(context.Background(), d, baselines.EASEOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: λ = %g, %s: λ = %g\n", m.Name(), m.Lambda, s.Name(), s.Lambda)
	doc := []int{4, 5}                  // jazz, piano: which tags go with them?
	list := make([]float64, len(terms)) // −score: the best first
	s.ListTo(list, doc, doc, nil)
	fmt.Println("ease-score:", nearest(list, 3, doc...))
	// Output:
	// ease: λ = 0.5, ease-score: λ = 0.05
	// ease-score: swing saxophone live
}
