package baselines

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/internal/flight"
	"github.com/taglens/taglens/internal/linalg"
	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/internal/defaults"
)

// Defaults of LSAOptions.
const (
	DefaultPOV       = 0.90 // §6.2.5: keep the top n eigenvalues covering ≥ 90 % of the variance
	DefaultLSAMaxDim = 256  // cap of the randomized path (large vocabularies)
)

// LSAOptions tunes FitLSA. The zero value means the defaults.
type LSAOptions struct {
	// POV is the percentage of variance to cover, in (0, 1] (default DefaultPOV).
	POV float64
	// Dim, if positive, fixes the number of components instead of POV.
	Dim int
	// MaxDim caps the components of the randomized path used for vocabularies
	// above features.DefaultExactMaxTerms (default DefaultLSAMaxDim); when the
	// cap is reached before POV, the model records Capped and the POV reached.
	MaxDim int
	// Seed seeds the randomized SVD.
	Seed uint64
}

// LSA is the Latent Semantic Analysis baseline (paper §2.1 and §6.2.5): the SVD
// Υᵀ = UΣVᵀ of the tf-idf document-term matrix Υ of the training documents
// (idf of §3.1, binary tf), truncated to the n leading components whose
// eigenvalues λ_i = σ_i² cover the POV:
//
//	POV = Σ_{i≤n} λ_i / Σ_{i≤|Γ|} λ_i ≥ 90 %.
//
// Term τ_i is represented by row i of U_n·Σ_n (the classical LSI term
// coordinates, Deerwester et al. 1990; with cosine the Σ weighting matters, and
// U·Σ makes term-term cosines those of the rank-n approximation of ΥᵀΥ), and
// terms are compared by cosine distance. The eigenvalues are those of ΥᵀΥ = T,
// the Eq. 2 aggregation matrix, which is sparse: for small vocabularies T is
// diagonalized exactly (dense |Γ|×|Γ|); above features.DefaultExactMaxTerms a
// randomized truncated SVD of the sparse T is used (Σλ_i = trace T is known
// exactly, so the POV is exact for the components found). LSA is non-contextual.
type LSA struct {
	vectorModel
	// Dim is n, POVReached the fraction of variance it covers.
	Dim        int
	POVReached float64
	// POVTarget is the POV asked for (0 when Dim was fixed by the options).
	POVTarget float64
	// Capped reports that MaxDim stopped the randomized path below the POV.
	Capped     bool
	Randomized bool
}

// FitLSA fits LSA on the encoded training documents (term indices in [0, v)).
// It returns an error for invalid input or a matrix without variance, and
// ctx.Err() when ctx is cancelled. Kept in one function: the weighted matrix
// and its decomposition are computed once and shared by every grid point of the
// tuning loop.
//
// A fit with the default options waits for one already running on the same
// documents and seed (a comparison trains LSA, and PCA, InfoTheo and
// Skip-gram ask for its dimension, two at a time) and returns its model.
func FitLSA(ctx context.Context, train [][]int, v int, o LSAOptions) (*LSA, error) {
	if err := checkTrain(NameLSA, train, v); err != nil {
		return nil, err
	}
	allDefault := o.Dim <= 0 && (o.POV <= 0 || o.POV > 1) && o.MaxDim <= 0
	if !allDefault {
		return fitLSA(ctx, train, v, o, false)
	}
	key := lsaDimKey{docs: fingerprint(train), n: len(train), v: v, seed: o.Seed}
	return lsaFits.Do(ctx, key, func() (*LSA, error) { return fitLSA(ctx, train, v, o, true) })
}

// lsaFits are the fits of FitLSA with the default options under way.
var lsaFits flight.Group[lsaDimKey, *LSA]

// fitLSA is FitLSA without the sharing; allDefault says that o holds the
// default options, whose dimension is then remembered (rememberLSADim).
func fitLSA(ctx context.Context, train [][]int, v int, o LSAOptions, allDefault bool) (*LSA, error) {
	if o.POV <= 0 || o.POV > 1 {
		o.POV = DefaultPOV
	}
	defaults.Positive(&o.MaxDim, DefaultLSAMaxDim)
	_, _, t := features.TermMatrix(train, v)
	var total float64
	for i := 0; i < v; i++ {
		total += t.At(i, i)
	}
	if !(total > 0) {
		return nil, errors.New("baselines: lsa: tf-idf matrix is zero (every term has idf 0)")
	}
	var vals []float64  // descending eigenvalues
	var vecs *mat.Dense // v×len(vals) eigenvectors
	randomized := v > features.DefaultExactMaxTerms
	if !randomized {
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(v, t.Dense().RawMatrix().Data), true) {
			return nil, errors.New("baselines: lsa: eigendecomposition did not converge")
		}
		asc := es.Values(nil)
		var ev mat.Dense
		es.VectorsTo(&ev)
		order := make([]int, v)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return asc[order[a]] > asc[order[b]] })
		vals = make([]float64, v)
		vecs = mat.NewDense(v, v, nil)
		for k, i := range order {
			vals[k] = max(asc[i], 0)
			for r := 0; r < v; r++ {
				vecs.Set(r, k, ev.At(r, i))
			}
		}
	} else {
		k := min(o.MaxDim, v)
		if o.Dim > 0 {
			k = min(o.Dim, v)
		}
		_, s, vv, err := linalg.RandomizedSVD(t, k, rand.New(rand.NewPCG(o.Seed, 0x15a)),
			linalg.SVDOptions{PowerIters: features.DefaultPowerIters, Check: ctx.Err})
		if err != nil {
			return nil, err
		}
		vals, vecs = s, vv
	}
	n := 0
	var cum float64
	switch {
	case o.Dim > 0:
		n = min(o.Dim, len(vals))
		for _, l := range vals[:n] {
			cum += l
		}
	default:
		for n < len(vals) && cum < o.POV*total {
			cum += vals[n]
			n++
		}
	}
	for n > 0 && !(vals[n-1] > 1e-12*vals[0]) {
		cum -= vals[n-1]
		n-- // never keep numerically zero components
	}
	if n == 0 {
		return nil, errors.New("baselines: lsa: no component with variance")
	}
	vec := make([]float64, v*n)
	for k := 0; k < n; k++ {
		sq := math.Sqrt(vals[k])
		for r := 0; r < v; r++ {
			vec[r*n+k] = vecs.At(r, k) * sq
		}
	}
	m := &LSA{
		vectorModel: vectorModel{TermVectors: NewTermVectors(v, n, vec), name: NameLSA},
		Dim:         n,
		POVReached:  cum / total,
		Randomized:  randomized,
	}
	if o.Dim <= 0 {
		m.POVTarget = o.POV
	}
	m.Capped = randomized && o.Dim <= 0 && m.POVReached < o.POV
	if allDefault {
		rememberLSADim(train, v, o.Seed, n)
	}
	return m, nil
}

// Tuning reports the kept dimension and POV (eval.Tuned).
func (m *LSA) Tuning() map[string]any {
	crit := "dimension fixed by options"
	if m.POVTarget > 0 {
		crit = fmt.Sprintf("POV >= %g%%", 100*m.POVTarget)
	}
	return map[string]any{
		"dim": m.Dim, "pov": m.POVReached, "capped": m.Capped, "randomized": m.Randomized,
		"criterion": crit,
	}
}
