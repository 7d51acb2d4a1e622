package baselines

import (
	"context"
	"errors"
	"slices"

	"github.com/taglens/taglens/ml/features"
)

// pairCounts returns the v×v symmetric sparse matrix of within-document
// co-occurrence counts of two distinct terms,
//
//	#(w, c) = |{δ ∈ train : w ∈ δ, c ∈ δ}|,  w ≠ c,
//
// the co-occurrence statistics of PPMI-SVD and GloVe: a document's tags are a
// set, every unordered pair of distinct terms of a document counts once, in
// both directions (#(w, c) = #(c, w)), and the diagonal is left out. It is the
// off-diagonal part of features.Cooccurrence (whose diagonal holds df), so no
// dense |Γ|×|Γ| matrix is formed. It returns an error if no two distinct terms
// share a document.
func pairCounts(train [][]int, v int) (*features.Sparse, error) {
	c := features.Cooccurrence(train, v, nil)
	out := &features.Sparse{R: v, C: v, Ptr: make([]int, v+1)}
	out.Ind = make([]int, 0, max(c.NNZ()-v, 0))
	out.Val = make([]float64, 0, max(c.NNZ()-v, 0))
	for i := 0; i < v; i++ {
		ind, val := c.Row(i)
		for p, j := range ind {
			if j != i && val[p] > 0 {
				out.Ind = append(out.Ind, j)
				out.Val = append(out.Val, val[p])
			}
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	if out.NNZ() == 0 {
		return nil, errors.New("no two distinct terms share a training document")
	}
	return out, nil
}

// Dimension grid of the modern baselines (PPMI-SVD, GloVe) when their options
// give none: LSA's dimension (the paper's convention of one dimension for all
// global models, §6.2.5) capped at MaxModernDim, then the usual embedding
// sizes below the cap; each point is capped by the largest dimension the model
// can have, and repeated points are dropped (the first occurrence stays, so
// ties keep LSA's dimension).
const MaxModernDim = 200

// modernDims are the fixed points of the default dimension grid after LSA's.
var modernDims = []int{50, 100, 200}

// dimGrid returns the dimension grid: dims if not empty, else LSA's dimension
// (capped at MaxModernDim) followed by modernDims; every point is capped at
// limit and repeats are dropped, keeping the first.
func dimGrid(ctx context.Context, train [][]int, v int, dims []int, limit int, seed uint64) ([]int, error) {
	var grid []int
	if len(dims) > 0 {
		grid = slices.Clone(dims)
	} else {
		l, err := lsaDim(ctx, train, v, 0, seed)
		if err != nil {
			return nil, err
		}
		grid = append([]int{min(l, MaxModernDim)}, modernDims...)
	}
	var out []int
	for _, d := range grid {
		if d < 1 {
			return nil, errors.New("dimension below 1 in the grid")
		}
		if d = min(d, limit); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}
