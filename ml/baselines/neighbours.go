package baselines

import (
	"context"
	"fmt"
	"math"

	"github.com/taglens/taglens/ml/features"
)

// The grids of the neighbourhood baselines, after those Dacrema, Cremonesi &
// Jannach ("Are We Really Making Much Progress?", RecSys 2019) search:
// neighbourhood sizes, item-kNN's shrink term and the asymmetry of its
// cosine, RP3beta's α and β.
var (
	neighbourKs    = []int{20, 100, 500}
	itemKNNShrinks = []float64{0, 10, 100}
	itemKNNAsym    = []float64{0.5, 0.75, 1}
	rp3Alphas      = []float64{0.5, 0.75, 1, 1.25, 1.5}
	rp3Betas       = []float64{0, 0.25, 0.5, 0.75}
)

// Neighbours is a neighbourhood recommender used as a baseline: item-kNN or
// RP3beta. It ranks a document's vocabulary by its own score, a sum of
// term-to-term similarities W over the document's other terms (simModel), the
// way such models recommend, not by Eq. 9; the report says so. Each target
// term j keeps the K source terms of largest W[·, j] (its neighbourhood).
//
//   - itemknn: the asymmetric cosine (Aiolli 2013) of two terms' document
//     sets with a shrink term, W[t, j] = #(t, j) / (df_t^a·df_j^(1−a) +
//     shrink), t ≠ j: a = ½ is the cosine, a = 1 the conditional
//     probability P(j | t).
//   - rp3beta (Paudel, Christoffel, Newell & Bernstein 2017): the 3-step
//     random walk term → document → term with each transition raised to α,
//     the target's popularity discounted by β,
//     W[t, j] = df_t^−α · Σ_{δ ∋ t, j} |δ|^−α · df_j^−β, t ≠ j.
//
// The setting is chosen on its grid by the extended-priming MAP of validation
// documents (Data.Valid), ties to the earlier grid point.
type Neighbours struct {
	simModel
	K        int
	Shrink   float64 // itemknn
	Alpha    float64 // rp3beta's α, itemknn's asymmetry a
	Beta     float64 // rp3beta
	ValidMAP float64
	HeldOut  bool
	Grid     []NeighboursPoint
}

// NeighboursPoint is one evaluated grid point.
type NeighboursPoint struct {
	K        int     `json:"k"`
	Shrink   float64 `json:"shrink,omitempty"`
	Alpha    float64 `json:"alpha,omitempty"` // rp3beta's α, itemknn's asymmetry a
	Beta     float64 `json:"beta,omitempty"`
	ValidMAP float64 `json:"valid_map"`
}

// NeighboursOptions tunes FitItemKNN and FitRP3beta. The zero value means the
// defaults.
type NeighboursOptions struct {
	// ValidDocs is the number of validation documents the grid is tuned on
	// (default DefaultValidDocs).
	ValidDocs int
	// Seed seeds the sample of tuning documents and their evaluation.
	Seed uint64
	// Progress, if not nil, is called after each grid point.
	Progress func(NeighboursPoint)
}

// Tuning reports the chosen setting and how it was chosen (eval.Tuned).
func (m *Neighbours) Tuning() map[string]any {
	t := map[string]any{"k": m.K, "valid_map": m.ValidMAP, "grid": m.Grid,
		"ranking": "its own score Σ_{t∈δ} W[t,j], not Eq. 9"}
	if m.name == NameItemKNN {
		t["shrink"], t["asymmetry"] = m.Shrink, m.Alpha
	} else {
		t["alpha"], t["beta"] = m.Alpha, m.Beta
	}
	t["criterion"] = "validation MAP, extended priming"
	if m.HeldOut {
		t["criterion"] = "MAP of held-out training documents (no validation documents), extended priming"
	}
	return t
}

// FitItemKNN fits the item-kNN baseline on d, tuning K, the shrink term and
// the asymmetry.
func FitItemKNN(ctx context.Context, d Data, opt NeighboursOptions) (*Neighbours, error) {
	var grid []NeighboursPoint
	for _, a := range itemKNNAsym {
		for _, s := range itemKNNShrinks {
			for _, k := range neighbourKs {
				grid = append(grid, NeighboursPoint{K: k, Shrink: s, Alpha: a})
			}
		}
	}
	// The co-occurrence counts do not depend on the point: counted once per
	// set of documents. C is symmetric, so row j of Wᵀ is row j of C scaled.
	var cache docsCache[*features.Sparse]
	return fitNeighbours(ctx, NameItemKNN, d, opt, grid, func(docs [][]int, p NeighboursPoint) *features.Sparse {
		c := cache.get(docs, 0, func() *features.Sparse { return features.Cooccurrence(docs, d.V, nil) })
		// df_t^a and df_j^(1−a) once per term, not per pair (the same values).
		df := diagonal(c)
		src, dst := powers(df, p.Alpha), powers(df, 1-p.Alpha)
		return scaleOffDiagonal(c, func(j, t int, x float64) float64 {
			return x / (src[t]*dst[j] + p.Shrink)
		})
	})
}

// FitRP3beta fits the RP3beta baseline on d, tuning K, α and β.
func FitRP3beta(ctx context.Context, d Data, opt NeighboursOptions) (*Neighbours, error) {
	var grid []NeighboursPoint
	for _, a := range rp3Alphas {
		for _, b := range rp3Betas {
			for _, k := range neighbourKs {
				grid = append(grid, NeighboursPoint{K: k, Alpha: a, Beta: b})
			}
		}
	}
	// The walk's Gram matrix depends on α alone (the grid's outer loop): it
	// is computed once per α and set of documents. It is symmetric, so row j
	// of Wᵀ is its row j scaled.
	type walk struct {
		g  *features.Sparse
		df []float64
	}
	var cache docsCache[walk]
	return fitNeighbours(ctx, NameRP3beta, d, opt, grid, func(docs [][]int, p NeighboursPoint) *features.Sparse {
		wk := cache.get(docs, p.Alpha, func() walk {
			x := features.DocTerm(docs, d.V, nil)
			for u := 0; u < x.R; u++ {
				_, val := x.Row(u)
				w := math.Pow(float64(len(val)), -p.Alpha/2)
				for i := range val {
					val[i] = w
				}
			}
			df := make([]float64, d.V)
			for _, t := range x.Ind {
				df[t]++
			}
			return walk{features.GramSparse(x), df}
		})
		src, dst := powers(wk.df, -p.Alpha), powers(wk.df, -p.Beta)
		return scaleOffDiagonal(wk.g, func(j, t int, s float64) float64 {
			return src[t] * s * dst[j]
		})
	})
}

// docsCache keeps the last value computed for one set of documents and one
// parameter, so that a grid walking its points in order computes it once.
type docsCache[T any] struct {
	docs  [][]int
	param float64
	val   T
	ok    bool
}

// get returns the cached value for docs (the same slice) and param, or
// computes it with f and keeps it in place of the last one.
func (c *docsCache[T]) get(docs [][]int, param float64, f func() T) T {
	same := c.ok && c.param == param && len(c.docs) == len(docs) && (len(docs) == 0 || &c.docs[0] == &docs[0])
	if !same {
		var zero T
		c.val = zero // the old value may be collected while f runs
		c.val, c.docs, c.param, c.ok = f(), docs, param, true
	}
	return c.val
}

// fitNeighbours evaluates every point of grid (sim builds Wᵀ of a point from
// documents: row j holds W[·, j]) on the tuning documents and returns the
// best, refitted on every training document when the tuning documents were
// held out of them.
func fitNeighbours(ctx context.Context, name string, d Data, opt NeighboursOptions, grid []NeighboursPoint,
	sim func(docs [][]int, p NeighboursPoint) *features.Sparse) (*Neighbours, error) {
	if err := checkTrain(name, d.Train, d.V); err != nil {
		return nil, err
	}
	fit, tune, heldOut := tuneSplit(d, opt.ValidDocs, opt.Seed)
	// build keeps, for each target j (a row of Wᵀ), its K sources.
	build := func(p NeighboursPoint, tops *rowRanking) *Neighbours {
		w := tops.topK(p.K).Transpose()
		return &Neighbours{simModel: simModel{name: name, w: w}, K: p.K, Shrink: p.Shrink, Alpha: p.Alpha, Beta: p.Beta}
	}
	maxK := 0
	for _, p := range grid {
		maxK = max(maxK, p.K)
	}
	var (
		best    *Neighbours
		bestMAP float64
		tops    *rowRanking // Wᵀ of the current setting but K, its rows ranked
		last    NeighboursPoint
	)
	for i, p := range grid {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Points differ in K last: W is built and its rows ranked once per
		// setting of the others.
		if tops == nil || p.Shrink != last.Shrink || p.Alpha != last.Alpha || p.Beta != last.Beta {
			tops = nil
			tops = rankRows(sim(fit, p), maxK)
		}
		last = p
		m := build(p, tops)
		mp, err := tuneMAP(ctx, m, tune, opt.Seed)
		if err != nil {
			return nil, fmt.Errorf("baselines: %s: tuning: %w", name, err)
		}
		grid[i].ValidMAP = mp
		if opt.Progress != nil {
			opt.Progress(grid[i])
		}
		if best == nil || mp > bestMAP {
			best, bestMAP = m, mp
		}
	}
	if heldOut {
		p := NeighboursPoint{K: best.K, Shrink: best.Shrink, Alpha: best.Alpha, Beta: best.Beta}
		best = build(p, rankRows(sim(d.Train, p), p.K))
	}
	best.ValidMAP, best.HeldOut, best.Grid = bestMAP, heldOut, grid
	return best, nil
}

// powers returns x[i]^e for every i.
func powers(x []float64, e float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Pow(v, e)
	}
	return out
}

// diagonal returns the diagonal of the square sparse matrix c.
func diagonal(c *features.Sparse) []float64 {
	out := make([]float64, c.R)
	for i := range out {
		out[i] = c.At(i, i)
	}
	return out
}

// scaleOffDiagonal returns c with entry (t, j) replaced by f(t, j, c[t, j])
// and the diagonal dropped.
func scaleOffDiagonal(c *features.Sparse, f func(t, j int, x float64) float64) *features.Sparse {
	out := &features.Sparse{R: c.R, C: c.C, Ptr: make([]int, c.R+1)}
	out.Ind = make([]int, 0, c.NNZ())
	out.Val = make([]float64, 0, c.NNZ())
	for t := 0; t < c.R; t++ {
		ind, val := c.Row(t)
		for p, j := range ind {
			if j != t {
				out.Ind = append(out.Ind, j)
				out.Val = append(out.Val, f(t, j, val[p]))
			}
		}
		out.Ptr[t+1] = len(out.Ind)
	}
	return out
}
