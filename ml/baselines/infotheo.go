package baselines

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/features"
)

// The InfoTheo grid of paper §6.2.5.
var (
	infoTheoKs     = []int{1, 3, 5}
	infoTheoAlphas = []float64{0.1, 0.2, 0.3, 0.4, 0.5}
)

// InfoTheoOptions tunes FitInfoTheo. The zero value means the defaults.
type InfoTheoOptions struct {
	// Dim is the dimension of the PCA-reduced space; zero means LSA's dimension
	// (the paper gives all global models the same dimension).
	Dim int
	// K and Alpha, if both set, fix the smoothing instead of the grid search
	// k ∈ {1, 3, 5} × α ∈ {0.1, …, 0.5} (infoTheoKs, infoTheoAlphas).
	K     int
	Alpha float64
	// TuneDocs is the number of training documents (seeded sample) on which the
	// training P@2 of each grid point is measured (default DefaultTuneDocs).
	TuneDocs int
	// Seed seeds the randomized PCA, the tuning sample and the evaluation.
	Seed uint64
	// Progress, if not nil, is called after each evaluated grid point.
	Progress func(InfoTheoPoint)
}

// InfoTheo is the information-theoretic smoothing baseline of Mandel et al.
// (2011) as the paper applies it (§2.1, §6.2.5), with the paper's best pairwise
// information, the tf-idf co-occurrence aggregation T of Eq. 2:
//
//  1. every term's top-k associated terms: the k terms j ≠ τ with the largest
//     T(τ, j) > 0 (ties to the smaller index);
//  2. each training document's binary BoW is smoothed: S(δ)[j] = 1 for j ∈ δ,
//     and α·|{τ ∈ δ : j among τ's top-k}| for j ∉ δ (present terms stay 1);
//  3. the smoothed matrix is tf-idf re-weighted (column j × idf_j), aggregated
//     into the term-to-term matrix A = SᵀS (co-occurrence aggregation),
//  4. A's rows are reduced by PCA to Dim components (the paper's "dimensionality
//     reduced version", same dimension as the other global models), and terms
//     are compared by cosine distance.
//
// With α = 0, InfoTheo reduces to the PCA baseline. k and α are chosen on the
// grid k ∈ {1, 3, 5} × α ∈ {0.1, …, 0.5} by training P@2 under the extended
// priming protocol (ties keep the earlier grid point; on a large vocabulary the
// grid compares randomized PCAs without subspace iterations and the chosen
// point is refitted with them, see tunePowerIters). A is applied as the
// operator Sᵀ(S·x) and the randomized PCA is used above
// features.DefaultExactMaxTerms terms, so no dense |Γ|×|Γ| matrix is formed for
// large vocabularies. InfoTheo is non-contextual.
type InfoTheo struct {
	vectorModel
	// K and Alpha are the chosen smoothing, TrainP2 its training P@2 (0 and
	// Grid empty when the options fixed the smoothing), Dim the reduced dimension.
	K       int
	Alpha   float64
	TrainP2 float64
	Dim     int
	// Grid holds every evaluated setting in grid order.
	Grid []InfoTheoPoint
}

// InfoTheoPoint is one grid point of the InfoTheo tuning.
type InfoTheoPoint struct {
	K       int     `json:"k"`
	Alpha   float64 `json:"alpha"`
	TrainP2 float64 `json:"train_p2"`
}

// FitInfoTheo fits InfoTheo on the encoded training documents (term indices in
// [0, v)), tuning k and α unless fixed. It stops with ctx.Err() when ctx is cancelled.
// Kept in one function: the grid's parallel fits, their in-order collection and
// the final refit share the statistics computed once at the start.
func FitInfoTheo(ctx context.Context, train [][]int, v int, o InfoTheoOptions) (*InfoTheo, error) {
	if err := checkTrain(NameInfoTheo, train, v); err != nil {
		return nil, err
	}
	dim, err := lsaDim(ctx, train, v, o.Dim, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("baselines: infotheo: %w", err)
	}
	_, idf, t := features.TermMatrix(train, v)
	assoc := features.TopAssociates(t, slices.Max(infoTheoKs))
	if o.K > 0 && o.Alpha > 0 {
		m, err := fitInfoTheoAt(train, v, idf, assoc, o.K, o.Alpha, dim, o.Seed, 0)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	var (
		best *InfoTheo
		grid []InfoTheoPoint
	)
	tune := tuningDocs(train, v, o.TuneDocs, o.Seed)
	randomized := pcaOpts(v, dim, o.Seed).Randomized
	type point struct {
		k int
		a float64
	}
	var points []point
	for _, k := range infoTheoKs {
		for _, a := range infoTheoAlphas {
			points = append(points, point{k, a})
		}
	}
	// The grid points are independent fits: they run on GOMAXPROCS goroutines
	// and are taken in grid order, so the choice (the first point of the
	// largest training P@2) and the progress reports are those of the serial
	// loop.
	err = runInOrder(ctx, len(points), func(i int) (*InfoTheo, error) {
		pt := points[i]
		m, err := fitInfoTheoAt(train, v, idf, assoc, pt.k, pt.a, dim, o.Seed, tunePowerIters)
		if err != nil {
			return nil, err
		}
		p2, err := tuneP2(ctx, m, tune, o.Seed)
		if err != nil {
			return nil, fmt.Errorf("baselines: infotheo: tuning: %w", err)
		}
		m.TrainP2 = p2
		if randomized {
			// Only the point's setting and P@2 are kept: the chosen one is
			// refitted below. Drop its vectors and kept distances now.
			m = &InfoTheo{K: m.K, Alpha: m.Alpha, TrainP2: p2, Dim: m.Dim}
		}
		return m, nil
	}, func(i int, m *InfoTheo) {
		pt := InfoTheoPoint{K: m.K, Alpha: m.Alpha, TrainP2: m.TrainP2}
		grid = append(grid, pt)
		if o.Progress != nil {
			o.Progress(pt)
		}
		if best == nil || m.TrainP2 > best.TrainP2 {
			best = m
		}
	})
	if err != nil {
		return nil, err
	}
	if randomized {
		// The grid compared approximate subspaces; the chosen point gets the
		// randomized PCA at full precision, like every other global model.
		m, err := fitInfoTheoAt(train, v, idf, assoc, best.K, best.Alpha, dim, o.Seed, 0)
		if err != nil {
			return nil, err
		}
		m.TrainP2 = best.TrainP2
		best = m
	}
	best.Grid = grid
	return best, nil
}

// tunePowerIters is the number of subspace iterations of the randomized PCA
// (features.PCAOptions.PowerIters; −1: none) while the grid is searched on a
// large vocabulary. On lastfm-hetrec (7,793 training terms, 256 dimensions)
// they cost 80 % of a grid point and changed no decision: training P@2 with
// 4 / 1 / 0 iterations, k=1 α=0.5: 0.4569 / 0.4502 / 0.4521; k=3 α=0.3:
// 0.4052 / 0.4033 / 0.4023; k=5 α=0.1: 0.3784 / 0.3774 / 0.3803 (test MAP
// within 0.002), at 12 / 4.9 / 2.0 s per fit.
const tunePowerIters = -1

func fitInfoTheoAt(train [][]int, v int, idf []float64, assoc [][]int, k int, alpha float64, dim int, seed uint64, powerIters int) (*InfoTheo, error) {
	s := features.Smooth(train, v, idf, assoc, k, alpha)
	opt := pcaOpts(v, dim, seed)
	opt.PowerIters = powerIters
	var p *features.Projection
	var vec []float64
	var err error
	if opt.Randomized {
		// A = SᵀS only as the operator Sᵀ(S·x): no |Γ|×|Γ| matrix.
		var scores *mat.Dense
		p, scores, err = features.FitPCAOperator(features.Gram{A: s}, opt)
		if err == nil {
			vec = scores.RawMatrix().Data
		}
	} else {
		a := features.GramSparse(s)
		p, err = features.FitPCASparse(a, opt)
		if err == nil {
			vec = scoresOf(p, a)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("baselines: infotheo: k=%d α=%g: %w", k, alpha, err)
	}
	return &InfoTheo{
		vectorModel: vectorModel{TermVectors: NewTermVectors(v, p.Out, vec), name: NameInfoTheo},
		K:           k,
		Alpha:       alpha,
		Dim:         p.Out,
	}, nil
}

// Tuning reports the chosen k, α and their training P@2 (eval.Tuned).
func (m *InfoTheo) Tuning() map[string]any {
	t := map[string]any{"k": m.K, "alpha": m.Alpha, "dim": m.Dim, "aggregation": "tfidf co-occurrence"}
	if len(m.Grid) > 0 {
		t["train_p2"] = m.TrainP2
		t["criterion"] = "training P@2, extended priming"
		t["grid"] = m.Grid
	} else {
		t["criterion"] = "fixed by options"
	}
	return t
}
