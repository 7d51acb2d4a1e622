package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/taglens/taglens/ml/features"
)

// easeLambdas is the λ grid of EASE^R, log-spaced by about 2.2: Steck (2019)
// tunes λ over a few hundred to a few thousand on user-item data of 10⁵ users;
// tag corpora are smaller, and on several of them the best λ is near 1 or
// below (steam-tags' and mtg-jamendo's validation documents chose 0.25, the
// end of a grid that started there).
var easeLambdas = []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// easeClimbAbove is the vocabulary size above which the λ grid is searched by
// climbing (each step evaluates the neighbours of the best point so far, for
// each ranking, until neither improves) instead of evaluating every point: a
// point costs a dense V×V inverse, O(V³). The climb starts at λ = 2, between
// the λ Corel5k's validation documents choose for the two rankings (0.5 under
// Eq. 9, 2 by the own score), so it takes few steps where small λ win.
const (
	easeClimbAbove = 1500
	easeClimbStart = 5 // λ = 2
)

// MaxDenseTerms is the largest vocabulary of the baselines built on a dense
// V×V matrix (EASE^R): at 10,000 terms one such matrix takes 800 MB and a fit
// holds three or four, and the O(V³) inverse takes minutes. Above it they are
// left out of an evaluation with the reason (Skip).
const MaxDenseTerms = 10000

// EASE is Steck's EASE^R ("Embarrassingly Shallow Autoencoders for Sparse
// Data", WWW 2019), a linear item-to-item model fitted in closed form on the
// binary training document×term matrix X:
//
//	G = XᵀX,  P = (G + λI)⁻¹,  B = I − P·diag(1/diag(P)),
//
// so B[t, j] = −P[t, j]/P[j, j] for t ≠ j and diag(B) = 0: the weights of the
// ridge regression of each term's column on every other term's, which carries
// the partial associations (a term's link to j given the rest of the
// document) that a co-occurrence count does not. Two baselines use it:
//
//   - ease ranks under the paper's protocol (Eq. 9): the distance from term
//     t to term j is −B[t, j], and a term is ranked by its smallest distance
//     to another term of the document, as every baseline is.
//   - ease-score (EASEScore) ranks by EASE^R's own score, how practitioners
//     use it: score(j | δ) = Σ_{t ∈ δ} B[t, j] (diag(B) = 0, so a term of δ
//     is scored by the other terms only). It is not Eq. 9, and the report
//     says so.
//
// λ is chosen from easeLambdas by the extended-priming MAP of validation
// documents (each baseline under its own ranking). EASE is non-contextual and
// immutable.
type EASE struct {
	V int
	// Neg is −B, V×V row-major: the distance rows of Eq. 9.
	Neg []float64
	// Lambda is the chosen λ, ValidMAP its tuning MAP; Grid holds every
	// evaluated λ in increasing order; HeldOut says the tuning documents were
	// held out of the training documents (the split had no validation
	// documents) and B was refitted on all of them.
	Lambda   float64
	ValidMAP float64
	Grid     []EASEPoint
	HeldOut  bool
	name     string
}

// EASEPoint is one evaluated λ: the tuning MAP of both rankings.
type EASEPoint struct {
	Lambda   float64 `json:"lambda"`
	MAPEq9   float64 `json:"map_eq9"`
	MAPScore float64 `json:"map_score"`
}

// EASEScore is EASE^R ranked by its own score (see EASE); it implements
// eval.ListModel.
type EASEScore struct{ *EASE }

// EASEOptions tunes FitEASE. The zero value means the defaults.
type EASEOptions struct {
	// Lambda, if positive, fixes λ instead of the grid search.
	Lambda float64
	// ValidDocs is the number of validation documents λ is tuned on (default
	// DefaultValidDocs).
	ValidDocs int
	// Seed seeds the sample of tuning documents and their evaluation.
	Seed uint64
	// Progress, if not nil, is called after each evaluated λ.
	Progress func(EASEPoint)
}

func (m *EASE) Name() string     { return m.name }
func (m *EASE) Contextual() bool { return false }
func (m *EASE) VocabSize() int   { return m.V }

// Distances implements eval.Model: dst[i·V+j] = −B[queries[i], j].
func (m *EASE) Distances(_, queries []int, _ *rand.Rand, dst []float64) {
	if len(dst) != len(queries)*m.V {
		panic(fmt.Sprintf("baselines: %s: len(dst) = %d, want %d", m.name, len(dst), len(queries)*m.V))
	}
	for i, q := range queries {
		copy(dst[i*m.V:(i+1)*m.V], m.Neg[q*m.V:(q+1)*m.V])
	}
}

// DistanceRows implements eval.RowModel: the rows of −B, lent.
func (m *EASE) DistanceRows(_, queries []int, _ *rand.Rand) ([][]float64, bool) {
	rows := make([][]float64, len(queries))
	for i, q := range queries {
		rows[i] = m.Neg[q*m.V : (q+1)*m.V : (q+1)*m.V]
	}
	return rows, true
}

// ListTo implements eval.ListModel: dst[j] = −Σ_{t ∈ queries} B[t, j].
func (m EASEScore) ListTo(dst []float64, _, queries []int, _ *rand.Rand) {
	clear(dst)
	for _, q := range queries {
		floats.Add(dst, m.Neg[q*m.V:(q+1)*m.V])
	}
}

// Tuning reports the chosen λ and how it was chosen (eval.Tuned).
func (m *EASE) Tuning() map[string]any {
	t := map[string]any{"lambda": m.Lambda}
	if len(m.Grid) > 0 {
		rank := "Eq. 9 over B"
		if m.name == NameEASEScore {
			rank = "its own score Σ_{t∈δ} B[t,j], not Eq. 9"
		}
		t["valid_map"] = m.ValidMAP
		t["criterion"] = "validation MAP, extended priming, ranked by " + rank
		if m.HeldOut {
			t["criterion"] = "MAP of held-out training documents (no validation documents), extended priming, ranked by " + rank
		}
		t["grid"] = m.Grid
	} else {
		t["criterion"] = "fixed by options"
	}
	return t
}

// FitEASE fits EASE^R on d and returns it ranked under Eq. 9 (ease) and by
// its own score (ease-score), each with the λ of its best tuning MAP (ties to
// the smaller λ). A vocabulary over MaxDenseTerms is refused. It stops with
// ctx.Err() when ctx is cancelled.
func FitEASE(ctx context.Context, d Data, opt EASEOptions) (*EASE, EASEScore, error) {
	if err := checkTrain(NameEASE, d.Train, d.V); err != nil {
		return nil, EASEScore{}, err
	}
	if d.V > MaxDenseTerms {
		return nil, EASEScore{}, fmt.Errorf("baselines: ease: %d terms: %s", d.V, denseRefusal(d.V))
	}
	if opt.Lambda > 0 {
		neg, err := easeFit(ctx, d.Train, d.V, opt.Lambda)
		if err != nil {
			return nil, EASEScore{}, err
		}
		m := &EASE{V: d.V, Neg: neg, Lambda: opt.Lambda, name: NameEASE}
		s := *m
		s.name = NameEASEScore
		return m, EASEScore{&s}, nil
	}
	fit, tune, heldOut := tuneSplit(d, opt.ValidDocs, opt.Seed)
	g := easeGram(fit, d.V)
	evaluated := make([]*EASEPoint, len(easeLambdas))
	var best [2]struct {
		i   int
		neg []float64
	}
	best[0].i, best[1].i = -1, -1
	// Buffers of V×V: the Gram matrix, the workspace of the inverse, the
	// current point's −B and the two best so far; a best that is beaten is
	// reused as the next point's −B, so a fit holds at most five.
	var spare [][]float64
	buffer := func() []float64 {
		if n := len(spare); n > 0 {
			b := spare[n-1]
			spare = spare[:n-1]
			return b
		}
		return make([]float64, d.V*d.V)
	}
	same := func(a, b []float64) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }
	work, scratch := buffer(), make([]float64, d.V*d.V)
	point := func(i int) error {
		if evaluated[i] != nil {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := easeSolve(ctx, work, scratch, g, d.V, easeLambdas[i]); err != nil {
			return err
		}
		m := &EASE{V: d.V, Neg: work, name: NameEASE}
		eq9, err := tuneMAP(ctx, m, tune, opt.Seed)
		if err != nil {
			return fmt.Errorf("baselines: ease: tuning: %w", err)
		}
		own, err := tuneMAP(ctx, EASEScore{m}, tune, opt.Seed)
		if err != nil {
			return fmt.Errorf("baselines: ease-score: tuning: %w", err)
		}
		p := &EASEPoint{Lambda: easeLambdas[i], MAPEq9: eq9, MAPScore: own}
		evaluated[i] = p
		if opt.Progress != nil {
			opt.Progress(*p)
		}
		old := [2][]float64{best[0].neg, best[1].neg}
		kept := false
		for k, x := range []float64{eq9, own} {
			b := &best[k]
			if b.i < 0 || better(x, valueOf(evaluated[b.i], k), i, b.i) {
				b.i, b.neg, kept = i, m.Neg, true
			}
		}
		for k, o := range old {
			if o != nil && !same(o, best[0].neg) && !same(o, best[1].neg) && (k == 0 || !same(o, old[0])) {
				spare = append(spare, o)
			}
		}
		if kept {
			work = buffer()
		}
		return nil
	}
	if d.V <= easeClimbAbove {
		for i := range easeLambdas {
			if err := point(i); err != nil {
				return nil, EASEScore{}, err
			}
		}
	} else {
		if err := point(easeClimbStart); err != nil {
			return nil, EASEScore{}, err
		}
		for k := range best {
			for {
				at := best[k].i
				for _, n := range []int{at - 1, at + 1} {
					if n >= 0 && n < len(easeLambdas) {
						if err := point(n); err != nil {
							return nil, EASEScore{}, err
						}
					}
				}
				if best[k].i == at {
					break
				}
			}
		}
	}
	var grid []EASEPoint
	for _, p := range evaluated {
		if p != nil {
			grid = append(grid, *p)
		}
	}
	g, work, scratch, spare = nil, nil, nil, nil // free before a refit
	var out [2]*EASE
	for k, name := range []string{NameEASE, NameEASEScore} {
		b := best[k]
		neg := b.neg
		if heldOut {
			var err error
			if neg, err = easeFit(ctx, d.Train, d.V, easeLambdas[b.i]); err != nil {
				return nil, EASEScore{}, err
			}
		}
		out[k] = &EASE{V: d.V, Neg: neg, Lambda: easeLambdas[b.i], ValidMAP: valueOf(evaluated[b.i], k),
			Grid: grid, HeldOut: heldOut, name: name}
	}
	return out[0], EASEScore{out[1]}, nil
}

// better reports whether tuning value x of grid point i beats y of point j:
// larger, ties to the smaller λ.
func better(x, y float64, i, j int) bool { return x > y || (x == y && i < j) }

func valueOf(p *EASEPoint, k int) float64 {
	if k == 0 {
		return p.MAPEq9
	}
	return p.MAPScore
}

// denseRefusal says why a vocabulary of v terms is too large for the dense
// baselines.
func denseRefusal(v int) string {
	return fmt.Sprintf("a dense %d×%d matrix takes %.1f GB and its O(V³) inverse is too slow; the dense baselines take at most %d terms",
		v, v, float64(v)*float64(v)*8/1e9, MaxDenseTerms)
}

// easeGram returns G = XᵀX of the binary document×term matrix of docs, V×V
// row-major (the diagonal holds df).
func easeGram(docs [][]int, v int) []float64 {
	c := features.Cooccurrence(docs, v, nil)
	g := make([]float64, v*v)
	for i := 0; i < v; i++ {
		ind, val := c.Row(i)
		for p, j := range ind {
			g[i*v+j] = val[p]
		}
	}
	return g
}

// easeFit returns −B of EASE^R with λ fitted on docs.
func easeFit(ctx context.Context, docs [][]int, v int, lambda float64) ([]float64, error) {
	neg := make([]float64, v*v)
	if err := easeSolve(ctx, neg, make([]float64, v*v), easeGram(docs, v), v, lambda); err != nil {
		return nil, err
	}
	return neg, nil
}

// easeSolve fills neg (V×V) with −B = P·diag(1/diag(P)) off the diagonal and
// 0 on it, P = (G + λI)⁻¹, by the blocked Cholesky inverse spdInverse
// (scratch: V×V workspace). G + λI is positive definite for λ > 0; a failed
// factorisation (a non-finite G) is an error.
func easeSolve(ctx context.Context, neg, scratch, g []float64, v int, lambda float64) error {
	copy(neg, g)
	for i := 0; i < v; i++ {
		neg[i*v+i] += lambda
	}
	ok, err := spdInverse(ctx, neg, scratch, v)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("baselines: ease: G + %gI is not positive definite", lambda)
	}
	// Scale column j by 1/P[j, j].
	inv := make([]float64, v)
	for j := range inv {
		pj := neg[j*v+j]
		if !(pj > 0) || math.IsInf(pj, 0) {
			return fmt.Errorf("baselines: ease: P[%d, %d] = %g, want a positive number", j, j, pj)
		}
		inv[j] = 1 / pj
	}
	for i := 0; i < v; i++ {
		row := neg[i*v : (i+1)*v]
		floats.Mul(row, inv)
		row[i] = 0
	}
	return nil
}
