package baselines

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/internal/linalg"
	"github.com/taglens/taglens/ml/features"
)

// Defaults and grids of PPMI-SVD.
var (
	// ppmisvdShifts is the default grid of the PMI shift k (SPPMI_k =
	// max(PMI − log k, 0)): k = 1 is plain PPMI, k = 5 the shift equivalent to
	// SGNS with 5 negatives (Levy et al. 2015, §3.2). Levy et al. report that
	// SVD usually prefers k = 1; both are cheap to try (one SVD each).
	ppmisvdShifts = []float64{1, 5}
	// ppmisvdPowers is the default grid of the eigenvalue weighting p of the
	// term vectors U_d·Σ_d^p (Levy et al. 2015, §3.3): p = 1 is the
	// "traditional" SVD factor, p = 0.5 the symmetric split, p = 0 the bare
	// singular vectors (the two Levy et al. found better on word similarity).
	ppmisvdPowers = []float64{0, 0.5, 1}
)

// DefaultContextAlpha is the exponent α of context distribution smoothing
// (Levy et al. 2015, §3.2, after word2vec's unigram^0.75 negative sampling).
const DefaultContextAlpha = 0.75

// PPMISVDOptions tunes FitPPMISVD. The zero value means the defaults; a grid
// of one point fixes that knob.
type PPMISVDOptions struct {
	// Dims is the dimension grid; empty means LSA's dimension capped at
	// MaxModernDim, then 50, 100 and 200 (modernDims, see dimGrid). Each point is
	// capped by the rank of the PPMI matrix.
	Dims []int
	// Powers is the eigenvalue-weighting grid, each p ≥ 0 (default
	// {0, 0.5, 1}: ppmisvdPowers).
	Powers []float64
	// Shifts is the PMI-shift grid, each k ≥ 1 (default {1, 5}: ppmisvdShifts).
	Shifts []float64
	// Alpha is the context-smoothing exponent in (0, 1] (default
	// DefaultContextAlpha; 1 is unsmoothed PMI).
	Alpha float64
	// TuneDocs is the number of training documents (seeded sample) on which
	// training P@2 is measured (default as DefaultTuneDocs).
	TuneDocs int
	// Seed seeds the randomized SVD (large vocabularies), the tuning sample and
	// the tuning evaluation.
	Seed uint64
	// Progress, if not nil, is called after each evaluated grid point.
	Progress func(PPMISVDPoint)
}

// PPMISVDPoint is one point of the PPMI-SVD tuning grid.
type PPMISVDPoint struct {
	Shift   float64 `json:"shift"`
	Dim     int     `json:"dim"`
	Power   float64 `json:"power"`
	TrainP2 float64 `json:"train_p2"`
}

// PPMISVD is the count-based baseline of Levy, Goldberg & Dagan (2015,
// "Improving Distributional Similarity with Lessons Learned from Word
// Embeddings", TACL 3) applied to tags: the word-context matrix is the
// within-document co-occurrence count matrix #(w, c) of two distinct terms
// (pairCounts: a document's tags are a set, each unordered pair counts once
// in both directions), re-weighted by shifted positive PMI with context
// distribution smoothing (sppmi), factorized by a truncated SVD
// M ≈ U_d·Σ_d·V_dᵀ (§2.2), and term w is represented by row w of U_d·Σ_d^p
// (eigenvalue weighting, §3.3), compared by cosine distance. The matrix stays
// sparse: up to features.DefaultExactMaxTerms terms it is factored exactly
// (dense |Γ|×|Γ| SVD), above by the randomized SVD of the sparse matrix
// (linalg.RandomizedSVD) at the largest dimension of the grid, whose leading
// columns serve the smaller dimensions.
//
// The shift k, the dimension d and the weighting p are chosen on the grid
// Shifts × Dims × Powers (in that nesting order) by training P@2 under the
// extended priming protocol on a seeded sample of training documents, as
// InfoTheo is tuned (§6.2.5); ties keep the earlier grid point. One SVD per
// shift serves every (d, p). PPMISVD is non-contextual.
type PPMISVD struct {
	vectorModel
	Shift      float64
	Dim        int
	Power      float64
	Alpha      float64
	Randomized bool
	// TrainP2 is the chosen point's training P@2 (0 when nothing was searched).
	TrainP2 float64
	Grid    []PPMISVDPoint
}

// sppmi is the association of term w with context c in PPMI-SVD, Levy,
// Goldberg & Dagan (2015): PMI (§2.1) with context distribution smoothing
// (§3.2),
//
//	PMI_α(w, c) = log( P̂(w, c) / (P̂(w)·P̂_α(c)) ),
//	P̂(w, c) = #(w, c)/|D|,  P̂(w) = #(w)/|D|,  P̂_α(c) = #(c)^α / Σ_c' #(c')^α,
//
// i.e. log( #(w, c)·Σ_c' #(c')^α / (#(w)·#(c)^α) ), where #(w) = Σ_c #(w, c),
// #(c) = Σ_w #(w, c) and |D| = Σ #(w, c) (|D| cancels); then the shifted
// positive PMI (§3.2, "shifted PMI"; §2.1, PPMI = max(PMI, 0))
//
//	SPPMI_k(w, c) = max(PMI_α(w, c) − log k, 0).
//
// wc = #(w, c) > 0, w = #(w), cAlpha = #(c)^α, zAlpha = Σ_c' #(c')^α.
func sppmi(wc, w, cAlpha, zAlpha, shift float64) float64 {
	pmi := math.Log(wc * zAlpha / (w * cAlpha))
	return max(pmi-math.Log(shift), 0)
}

// ppmiMatrix returns the sparse SPPMI_k matrix of the pair counts (rows
// terms, columns contexts; zeros are not stored).
func ppmiMatrix(counts *features.Sparse, alpha, shift float64) *features.Sparse {
	v := counts.R
	rowSum := make([]float64, v) // #(w); counts are symmetric, so also #(c)
	for i := 0; i < v; i++ {
		_, val := counts.Row(i)
		for _, x := range val {
			rowSum[i] += x
		}
	}
	colAlpha := make([]float64, v)
	var z float64
	for c, n := range rowSum {
		if n > 0 {
			colAlpha[c] = math.Pow(n, alpha)
			z += colAlpha[c]
		}
	}
	m := &features.Sparse{R: v, C: v, Ptr: make([]int, v+1)}
	for i := 0; i < v; i++ {
		ind, val := counts.Row(i)
		for p, j := range ind {
			if x := sppmi(val[p], rowSum[i], colAlpha[j], z, shift); x > 0 {
				m.Ind = append(m.Ind, j)
				m.Val = append(m.Val, x)
			}
		}
		m.Ptr[i+1] = len(m.Ind)
	}
	return m
}

// svdRelTol drops singular values at most svdRelTol·σ_1 (numerically zero).
const svdRelTol = 1e-12

// truncatedSVD returns the k leading singular values of the square sparse m,
// k ≤ want, without numerically zero ones, and its left singular vectors u
// (v rows; column i goes with s[i], further columns are unused): exact (dense
// SVD) up to features.DefaultExactMaxTerms rows, else randomized at rank want.
func truncatedSVD(m *features.Sparse, want int, seed uint64) (u *mat.Dense, s []float64, randomized bool, err error) {
	v := m.R
	want = min(want, v)
	if v <= features.DefaultExactMaxTerms {
		var svd mat.SVD
		if !svd.Factorize(m.Dense(), mat.SVDThinU) { // U only: V is not used
			return nil, nil, false, errors.New("SVD did not converge")
		}
		s = svd.Values(nil)
		var uu mat.Dense
		svd.UTo(&uu)
		u = &uu
	} else {
		randomized = true
		u, s, _, err = linalg.RandomizedSVD(m, want, rand.New(rand.NewPCG(seed, 0x9e71)),
			linalg.SVDOptions{PowerIters: features.DefaultPowerIters, WantU: true})
		if err != nil {
			return nil, nil, true, err
		}
	}
	k := 0
	for k < min(want, len(s)) && s[k] > svdRelTol*s[0] {
		k++
	}
	if k == 0 {
		return nil, nil, randomized, errors.New("the PPMI matrix has no nonzero singular value")
	}
	return u, s[:k], randomized, nil
}

// ppmiVectors returns the V×d term vectors U_d·Σ_d^p (eigenvalue weighting,
// Levy et al. 2015 §3.3; p = 0 gives U_d, p = 1 the SVD factor U_d·Σ_d).
func ppmiVectors(u *mat.Dense, s []float64, d int, p float64) []float64 {
	v, _ := u.Dims()
	w := make([]float64, d)
	for k := range w {
		w[k] = math.Pow(s[k], p)
	}
	vec := make([]float64, v*d)
	for r := 0; r < v; r++ {
		row := u.RawRowView(r)
		for k := 0; k < d; k++ {
			vec[r*d+k] = row[k] * w[k]
		}
	}
	return vec
}

// FitPPMISVD fits PPMI-SVD on the encoded training documents (term indices in
// [0, v)), tuning the grid points of o unless each grid has one point. It
// returns an error for invalid input or options, or when no two terms co-occur,
// and ctx.Err() when ctx is cancelled.
// Kept in one function: the counts, the PPMI matrix and its decomposition are
// built once and shared by every grid point of the tuning loop.
func FitPPMISVD(ctx context.Context, train [][]int, v int, o PPMISVDOptions) (*PPMISVD, error) {
	if err := checkTrain(NamePPMISVD, train, v); err != nil {
		return nil, err
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultContextAlpha
	}
	if !(o.Alpha > 0 && o.Alpha <= 1) {
		return nil, fmt.Errorf("baselines: ppmi-svd: context-smoothing exponent %v outside (0, 1]", o.Alpha)
	}
	shifts, powers := o.Shifts, o.Powers
	if len(shifts) == 0 {
		shifts = ppmisvdShifts
	}
	if len(powers) == 0 {
		powers = ppmisvdPowers
	}
	for _, k := range shifts {
		if !(k >= 1) || math.IsInf(k, 0) {
			return nil, fmt.Errorf("baselines: ppmi-svd: shift %v, want a finite k ≥ 1", k)
		}
	}
	for _, p := range powers {
		if !(p >= 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("baselines: ppmi-svd: eigenvalue weighting %v, want a finite p ≥ 0", p)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counts, err := pairCounts(train, v)
	if err != nil {
		return nil, fmt.Errorf("baselines: ppmi-svd: %w", err)
	}
	dims, err := dimGrid(ctx, train, v, o.Dims, v, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("baselines: ppmi-svd: %w", err)
	}
	search := len(shifts)*len(dims)*len(powers) > 1
	var tune [][]int
	if search {
		tune = tuningDocs(train, v, o.TuneDocs, o.Seed)
	}
	var best *PPMISVD
	var grid []PPMISVDPoint
	for _, k := range shifts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := ppmiMatrix(counts, o.Alpha, k)
		if m.NNZ() == 0 {
			if len(shifts) == 1 {
				return nil, fmt.Errorf("baselines: ppmi-svd: every PMI is at most log %g: the shifted PPMI matrix is zero", k)
			}
			continue // this shift leaves nothing; the grid goes on
		}
		u, s, randomized, err := truncatedSVD(m, slices.Max(dims), o.Seed)
		if err != nil {
			return nil, fmt.Errorf("baselines: ppmi-svd: shift %g: %w", k, err)
		}
		var seen []int
		for _, d := range dims {
			d = min(d, len(s)) // the rank may fall below the grid point
			if slices.Contains(seen, d) {
				continue
			}
			seen = append(seen, d)
			for _, p := range powers {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				vec := ppmiVectors(u, s, d, p)
				cand := &PPMISVD{
					vectorModel: vectorModel{TermVectors: NewTermVectors(v, d, vec), name: NamePPMISVD},
					Shift:       k, Dim: d, Power: p, Alpha: o.Alpha, Randomized: randomized,
				}
				if !search {
					return cand, nil
				}
				p2, err := tuneP2(ctx, cand, tune, o.Seed)
				if err != nil {
					return nil, fmt.Errorf("baselines: ppmi-svd: tuning: %w", err)
				}
				cand.TrainP2 = p2
				pt := PPMISVDPoint{Shift: k, Dim: d, Power: p, TrainP2: p2}
				grid = append(grid, pt)
				if o.Progress != nil {
					o.Progress(pt)
				}
				if best == nil || p2 > best.TrainP2 {
					best = cand
				}
			}
		}
	}
	if best == nil {
		return nil, fmt.Errorf("baselines: ppmi-svd: every shift of %v leaves the PPMI matrix zero", shifts)
	}
	best.Grid = grid
	return best, nil
}

// Tuning reports the chosen shift, dimension and eigenvalue weighting and the
// grid (eval.Tuned).
func (m *PPMISVD) Tuning() map[string]any {
	t := map[string]any{"shift": m.Shift, "dim": m.Dim, "eigenvalue_weighting": m.Power,
		"context_alpha": m.Alpha, "randomized": m.Randomized, "distance": "cosine",
		"cooccurrence": "distinct term pairs within a training document"}
	if len(m.Grid) > 0 {
		t["train_p2"] = m.TrainP2
		t["criterion"] = "training P@2, extended priming, over shift × dim × eigenvalue weighting"
		t["grid"] = slices.Clone(m.Grid)
	} else {
		t["criterion"] = "fixed by options"
	}
	return t
}
