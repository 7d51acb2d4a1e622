package features

import (
	"fmt"
	"slices"
)

// TopAssociates returns, for every term, up to k associated terms: the j ≠ i
// with the largest T_ij > 0, in decreasing order (ties to the smaller index).
func TopAssociates(t *Sparse, k int) [][]int {
	out := make([][]int, t.R)
	var cand []int
	for i := 0; i < t.R; i++ {
		ind, val := t.Row(i)
		cand = cand[:0]
		for p, j := range ind {
			if j != i && val[p] > 0 {
				cand = append(cand, p)
			}
		}
		slices.SortStableFunc(cand, func(a, b int) int {
			switch {
			case val[a] > val[b]:
				return -1
			case val[a] < val[b]:
				return 1
			}
			return ind[a] - ind[b]
		})
		n := min(k, len(cand))
		out[i] = make([]int, n)
		for q := 0; q < n; q++ {
			out[i][q] = ind[cand[q]]
		}
	}
	return out
}

// Smooth returns the smoothed, tf-idf re-weighted document-term matrix S of
// Mandel et al. (2011), the smoothing of the InfoTheo baseline (paper §2.1,
// §6.2.5) and of TermOptions.Smooth: row δ holds idf_j at j ∈ δ and
// α·c_j·idf_j at the other terms j that are among the top-k associates of c_j
// terms of δ. assoc[τ] lists τ's associates in decreasing strength; only the
// first k are used.
func Smooth(train [][]int, v int, idf []float64, assoc [][]int, k int, alpha float64) *Sparse {
	s := &Sparse{R: len(train), C: v, Ptr: make([]int, len(train)+1)}
	acc := make([]float64, v)
	in := make([]bool, v)
	var touched []int
	for d, doc := range train {
		touched = touched[:0]
		bow := BoW(doc)
		for _, t := range bow {
			if t < 0 || t >= v {
				panic(fmt.Sprintf("features: term %d outside vocabulary of %d", t, v))
			}
			in[t] = true
			touched = append(touched, t)
		}
		for _, t := range bow {
			for _, j := range assoc[t][:min(k, len(assoc[t]))] {
				if in[j] {
					continue
				}
				if acc[j] == 0 {
					touched = append(touched, j)
				}
				acc[j] += alpha
			}
		}
		slices.Sort(touched)
		for _, j := range touched {
			w := acc[j]
			if in[j] {
				w = 1
			}
			s.Ind = append(s.Ind, j)
			s.Val = append(s.Val, w*idf[j])
			acc[j], in[j] = 0, false
		}
		s.Ptr[d+1] = len(s.Ind)
	}
	return s
}

// assocLists returns the associates of a TermFeatures (one per term, −1 for
// none) in the form Smooth takes.
func assocLists(assoc []int) [][]int {
	out := make([][]int, len(assoc))
	for i := range assoc {
		if assoc[i] >= 0 {
			out[i] = assoc[i : i+1 : i+1]
		}
	}
	return out
}
