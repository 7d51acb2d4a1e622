package features

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/taglens/taglens/internal/linalg"
	"github.com/taglens/taglens/ml/internal/defaults"
	"gonum.org/v1/gonum/mat"
)

// Defaults of PCAOptions.
const (
	DefaultRandomizedDim = 200                      // output dimension of the randomized PCA
	DefaultOversample    = linalg.DefaultOversample // Halko et al. (2011) §4.2: p = 5..10 extra columns
	DefaultPowerIters    = 4                        // subspace iterations; long-tailed tag spectra decay slowly
	DefaultRelTol        = 1e-9                     // σ_i ≤ RelTol·σ_1 counts as negligible variance
)

// PCAOptions tunes the PCA fits. The zero value means the defaults.
type PCAOptions struct {
	// ctx, when set (FitTermsContext), is checked between the randomized
	// SVD's products with the data, each a fraction of a second on large data.
	ctx context.Context
	// step, when set (FitTermsContext's Step), is called before each product
	// of the randomized path with the products done and their number.
	step func(done, total int)

	// Dim caps the number of principal components kept. Zero means: every
	// component with non-negligible variance for the exact PCA, and
	// DefaultRandomizedDim for the randomized PCA.
	Dim int

	// RelTol drops components whose singular value is at most RelTol times the
	// largest one (zero or numerically zero variance). Zero means DefaultRelTol.
	RelTol float64

	// Randomized selects the randomized truncated SVD of Halko, Martinsson &
	// Tropp (2011, Algorithm 4.4 with the SVD of §5.1) instead of the exact SVD.
	Randomized bool

	// Oversample is the number of extra random directions p of the randomized
	// SVD (default DefaultOversample).
	Oversample int

	// PowerIters is the number q of subspace (power) iterations of the
	// randomized SVD (zero means DefaultPowerIters, negative means none).
	PowerIters int

	// Seed seeds the Gaussian test matrix of the randomized SVD.
	Seed uint64

	// Scaling selects how the scores are mapped into [−1, +1] (default
	// ScalePerComponent; see Scaling).
	Scaling Scaling
}

// Scaling is the linear map of PCA scores into [−1, +1] (paper §5.2: "linear
// scaling of each feature ... to ensure that each feature is in the range
// (−1, +1)"). The paper does not say whether the components share one scale;
// both readings keep every feature in range.
type Scaling int

const (
	// ScalePerComponent maps each component's training range [Lo_k, Hi_k] onto
	// [−1, +1] on its own. Components of small variance are stretched as much as
	// the leading ones, so distances between scaled rows no longer follow the
	// data (the tail of the spectrum, mostly noise, weighs as much as its head).
	ScalePerComponent Scaling = iota
	// ScaleCommon divides every (centred) score by one factor, the largest
	// |score| over all components and training rows, so the scaled rows keep
	// the geometry of the PCA scores: Euclidean distances are those of the
	// scores up to one constant. Stored as Lo_k = −R, Hi_k = +R for every k.
	ScaleCommon
)

// String returns the name used on the command line and in model information.
func (s Scaling) String() string {
	switch s {
	case ScalePerComponent:
		return "per-component"
	case ScaleCommon:
		return "common"
	}
	return fmt.Sprintf("Scaling(%d)", int(s))
}

// ParseScaling parses a Scaling name ("per-component" or "common").
func ParseScaling(name string) (Scaling, error) {
	switch name {
	case "per-component":
		return ScalePerComponent, nil
	case "common":
		return ScaleCommon, nil
	}
	return 0, fmt.Errorf("features: unknown scaling %q (want per-component or common)", name)
}

func (o *PCAOptions) relTol() float64 {
	if o == nil || o.RelTol == 0 {
		return DefaultRelTol
	}
	return o.RelTol
}

// Projection is a fitted PCA decorrelation followed by a linear scaling of every
// component to [−1, +1] (paper §5.2), fitted on training observations only and
// applied identically to new data:
//
//	z = (x − Mean)ᵀ·W            (scores; W's columns are unit principal directions)
//	s_k = 2·(z_k − Lo_k)/(Hi_k − Lo_k) − 1
//
// where Lo_k and Hi_k are the minimum and maximum score of component k over the
// training observations (ScalePerComponent), or −R and +R for every k with R
// the largest |score| of any component (ScaleCommon), so training data map into
// [−1, +1] and new data may fall slightly outside (no clipping: the map stays
// linear). A Projection is immutable after fitting and safe for
// concurrent use. Its exported fields are its serialized form (see also
// MarshalBinary).
type Projection struct {
	In, Out int

	// Mean holds the In training means of the input features.
	Mean []float64
	// W is the In×Out matrix of principal directions, row-major (W[i*Out+k]).
	// Each direction's sign is fixed so that its largest-magnitude entry is
	// positive (deterministic across runs and paths).
	W []float64
	// Variance holds the training variance of each kept component (σ_k²/(n−1)),
	// in decreasing order.
	Variance []float64
	// TotalVariance is the summed variance of all In input features (trace of
	// the covariance), so Σ Variance / TotalVariance is the fraction kept.
	TotalVariance float64
	// Lo and Hi are the per-component score minimum and maximum on training data.
	Lo, Hi []float64
	// MeanW = Meanᵀ·W, cached for sparse inputs.
	MeanW []float64
	// Randomized records which path fitted the projection.
	Randomized bool
}

// ErrNoVariance is returned when the training observations have no
// non-negligible variance (e.g. fewer than two distinct observations).
var ErrNoVariance = errors.New("features: training data has no variance to decorrelate")

// FitPCA fits a Projection to the rows of x (rows = observations, columns =
// features) with the exact thin SVD of the centred matrix, or the randomized
// SVD when opt.Randomized. opt may be nil. It returns ErrNoVariance when x has
// no variance and panics if x has no rows or columns.
func FitPCA(x mat.Matrix, opt *PCAOptions) (*Projection, error) {
	r, c := x.Dims()
	mean := make([]float64, c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			mean[j] += x.At(i, j)
		}
	}
	for j := range mean {
		mean[j] /= float64(r)
	}
	xc := mat.NewDense(r, c, nil)
	var total float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := x.At(i, j) - mean[j]
			xc.Set(i, j, v)
			total += v * v
		}
	}
	if opt != nil && opt.Randomized {
		p, _, err := fitRandomized(linalg.Dense{M: xc}, mean, total, r, opt)
		return p, err
	}
	p, _, err := fitExact(xc, mean, total, opt)
	return p, err
}

// FitPCASparse fits a Projection to the rows of the sparse matrix a (rows =
// observations): exactly (densifying a; only for small a) or, when
// opt.Randomized, with the randomized SVD of the implicitly centred operator,
// never forming a dense r×c matrix.
func FitPCASparse(a *Sparse, opt *PCAOptions) (*Projection, error) {
	if a.R == 0 || a.C == 0 {
		panic("features: FitPCASparse of an empty matrix")
	}
	mean := ColMeans(a)
	// ||X||_F² = ||A||_F² − r·||μ||² for X = A − 1μᵀ.
	var total float64
	for _, v := range a.Val {
		total += v * v
	}
	for _, m := range mean {
		total -= float64(a.R) * m * m
	}
	total = max(total, 0)
	if opt != nil && opt.Randomized {
		p, _, err := fitRandomized(Centered{A: a, Mean: mean}, mean, total, a.R, opt)
		return p, err
	}
	xc := a.Dense()
	for i := 0; i < a.R; i++ {
		row := xc.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
	p, _, err := fitExact(xc, mean, total, opt)
	return p, err
}

// FitPCAOperator fits a Projection to the rows of an operator a (rows =
// observations) that is available only through products, e.g. Gram{S} = SᵀS for
// a sparse S, and also returns the training scores (r×Out, unscaled). The column
// means are computed as Aᵀ·1/r. With opt.Randomized the randomized SVD of the
// implicitly centred operator is used; otherwise a is densified by products
// with the identity (small a only). TotalVariance is computed exactly on the
// dense path and left 0 (unknown; Explained returns NaN) on the randomized one.
func FitPCAOperator(a Operator, opt *PCAOptions) (*Projection, *mat.Dense, error) {
	r, c := a.Dims()
	if r == 0 || c == 0 {
		panic("features: FitPCAOperator of an empty operator")
	}
	ones := mat.NewDense(r, 1, nil)
	for i := 0; i < r; i++ {
		ones.Set(i, 0, 1)
	}
	ms := mat.NewDense(c, 1, nil)
	a.MulTo(ms, true, ones)
	mean := make([]float64, c)
	for j := range mean {
		mean[j] = ms.At(j, 0) / float64(r)
	}
	if opt != nil && opt.Randomized {
		return fitRandomized(Centered{A: a, Mean: mean}, mean, 0, r, opt)
	}
	id := mat.NewDense(c, c, nil)
	for j := 0; j < c; j++ {
		id.Set(j, j, 1)
	}
	xc := mat.NewDense(r, c, nil)
	a.MulTo(xc, false, id)
	var total float64
	for i := 0; i < r; i++ {
		row := xc.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
			total += row[j] * row[j]
		}
	}
	return fitExact(xc, mean, total, opt)
}

// fitExact computes the thin SVD X = UΣVᵀ of the centred data xc (r×c); the
// principal directions are V's columns, the scores UΣ = X·V. It is not shared
// with tsne's exact path (exactAxes), which eigendecomposes the covariance
// XᵀX/(n−1) instead of factoring X: the axes agree only up to rounding, so one
// function for both would change the bits of the models or of the maps.
func fitExact(xc *mat.Dense, mean []float64, sumSq float64, opt *PCAOptions) (*Projection, *mat.Dense, error) {
	r, c := xc.Dims()
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThin) {
		return nil, nil, errors.New("features: PCA: SVD did not converge")
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	k := keep(s, opt, len(s))
	if k == 0 {
		return nil, nil, ErrNoVariance
	}
	w := leadingColumns(&v, c, k)
	return finish(linalg.Dense{M: xc}, mean, sumSq, r, s[:k], w, c, k, false, scalingOf(opt))
}

// keep returns how many leading singular values to keep.
func keep(s []float64, opt *PCAOptions, limit int) int {
	if len(s) == 0 || s[0] <= 0 || math.IsNaN(s[0]) {
		return 0
	}
	tol := opt.relTol() * s[0]
	k := 0
	for k < len(s) && k < limit && s[k] > tol {
		k++
	}
	if opt != nil && opt.Dim > 0 && k > opt.Dim {
		k = opt.Dim
	}
	return k
}

// finish fixes signs, computes training scores X·W (via op, r rows) for the
// scaling range, and assembles the Projection.
func finish(op Operator, mean []float64, sumSq float64, r int, s []float64, w []float64, c, k int, randomized bool, sc Scaling) (*Projection, *mat.Dense, error) {
	linalg.SignByLargest(mat.NewDense(c, k, w)) // w's c×k view
	p := &Projection{In: c, Out: k, Mean: mean, W: w, Randomized: randomized}
	denom := float64(max(r-1, 1))
	p.TotalVariance = sumSq / denom
	p.Variance = make([]float64, k)
	for j := range p.Variance {
		p.Variance[j] = s[j] * s[j] / denom
	}
	p.MeanW = make([]float64, k)
	for i := 0; i < c; i++ {
		if m := mean[i]; m != 0 {
			for j := 0; j < k; j++ {
				p.MeanW[j] += m * w[i*k+j]
			}
		}
	}
	scores := mat.NewDense(r, k, nil)
	op.MulTo(scores, false, mat.NewDense(c, k, w))
	p.Lo = make([]float64, k)
	p.Hi = make([]float64, k)
	for j := 0; j < k; j++ {
		p.Lo[j], p.Hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i < r; i++ {
		row := scores.RawRowView(i)
		for j, z := range row {
			p.Lo[j] = min(p.Lo[j], z)
			p.Hi[j] = max(p.Hi[j], z)
		}
	}
	if sc == ScaleCommon {
		var rad float64
		for j := 0; j < k; j++ {
			rad = max(rad, -p.Lo[j], p.Hi[j])
		}
		for j := 0; j < k; j++ {
			p.Lo[j], p.Hi[j] = -rad, rad
		}
	}
	return p, scores, nil
}

func scalingOf(opt *PCAOptions) Scaling {
	if opt == nil {
		return ScalePerComponent
	}
	return opt.Scaling
}

// fitRandomized runs the randomized SVD of the centred operator and assembles
// the Projection.
func fitRandomized(x Operator, mean []float64, sumSq float64, r int, opt *PCAOptions) (*Projection, *mat.Dense, error) {
	_, c := x.Dims()
	d := opt.Dim
	defaults.Positive(&d, DefaultRandomizedDim)
	d = min(d, r, c)
	q := opt.PowerIters
	if q == 0 {
		q = DefaultPowerIters
	}
	var check func() error
	if opt.ctx != nil {
		check = opt.ctx.Err
	}
	if opt.step != nil {
		// linalg.RandomizedSVD calls Check before each of its 2q+2 products.
		done, total, ctxCheck := 0, 2*q+2, check
		check = func() error {
			opt.step(done, total)
			done++
			if ctxCheck != nil {
				return ctxCheck()
			}
			return nil
		}
	}
	_, s, v, err := linalg.RandomizedSVD(x, d, rand.New(rand.NewPCG(opt.Seed, 0x7e12f3a7)), linalg.SVDOptions{
		Oversample: opt.Oversample,
		PowerIters: q,
		Factor:     linalg.FactorTransposed,
		Check:      check,
	})
	if err != nil {
		return nil, nil, err
	}
	k := keep(s, opt, d)
	if k == 0 {
		return nil, nil, ErrNoVariance
	}
	w := leadingColumns(v, c, k)
	return finish(x, mean, sumSq, r, s[:k], w, c, k, true, scalingOf(opt))
}

// FitPCASparseContext is FitPCASparse that stops with ctx.Err() when ctx is
// cancelled (checked between the randomized SVD's products).
func FitPCASparseContext(ctx context.Context, a *Sparse, opt *PCAOptions) (*Projection, error) {
	var o PCAOptions
	if opt != nil {
		o = *opt
	}
	o.ctx = ctx
	p, err := FitPCASparse(a, &o)
	if err == nil {
		err = ctx.Err()
	}
	return p, err
}

// leadingColumns returns the first k columns of the c rows of v, row-major
// (the c × k weights of the k principal directions).
func leadingColumns(v mat.Matrix, c, k int) []float64 {
	w := make([]float64, c*k)
	for i := 0; i < c; i++ {
		for j := 0; j < k; j++ {
			w[i*k+j] = v.At(i, j)
		}
	}
	return w
}
