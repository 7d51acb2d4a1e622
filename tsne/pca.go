package tsne

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/taglens/taglens/internal/linalg"
	"gonum.org/v1/gonum/mat"
)

// initStd is the standard deviation of the first coordinate of the initial
// embedding (scikit-learn and openTSNE scale the PCA initialisation to it).
const initStd = 1e-4

// Choice and parameters of the principal-axis computation.
const (
	// exactPCAMaxDims is the largest d for which the principal axes come from
	// the d×d covariance and its full eigendecomposition (O(n·d² + d³) time,
	// O(d²) memory: at most 512 KiB here). Wider inputs use randomized SVD,
	// whose memory is O(n·d) and which never forms a d×d matrix.
	exactPCAMaxDims = 256
	// maxComponents bounds the number of principal components any caller
	// may ask for.
	maxComponents = 50
	// rsvdOversample is the oversampling p of the randomized range finder
	// (Halko et al. 2011, Sec. 4.2 recommend p = 5 or 10).
	rsvdOversample = 10
	// rsvdPowerIters is the number q of power (subspace) iterations
	// (Halko et al. 2011, Alg. 4.4); scikit-learn uses 7 when few components
	// are wanted. Each iteration costs two n×d×(k+p) products.
	rsvdPowerIters = 7
)

// pcaInit writes to y (flat n×2) the projection of the centred x (flat n×d)
// on its two leading principal axes, scaled so that the first coordinate has
// standard deviation 1e-4. Each axis's sign is fixed so that its
// largest-magnitude loading is positive, making the result deterministic. If
// the data have fewer than two non-degenerate directions, the missing
// coordinates are Gaussian noise from seed with the same scale. It returns
// ctx's error if ctx is cancelled during the decomposition.
func pcaInit(ctx context.Context, x []float64, n, d int, y []float64, seed uint64) error {
	xc, _ := centred(x, n, d)
	axes, err := principalAxes(ctx, xc, 2, seed)
	if err != nil {
		return err
	}
	comps := 0
	if axes != nil {
		_, comps = axes.Dims()
		var proj mat.Dense
		proj.Mul(xc, axes) // n×comps
		for i := 0; i < n; i++ {
			for c := 0; c < comps; c++ {
				y[2*i+c] = proj.At(i, c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7473_6e65_696e_6974))
	for c := comps; c < 2; c++ {
		for i := 0; i < n; i++ {
			y[2*i+c] = rng.NormFloat64()
		}
	}
	// Scale both coordinates by the same factor: std of the first is 1e-4.
	m, s := 0.0, 0.0
	for i := 0; i < n; i++ {
		m += y[2*i]
	}
	m /= float64(n)
	for i := 0; i < n; i++ {
		s += (y[2*i] - m) * (y[2*i] - m)
	}
	std := math.Sqrt(s / float64(n))
	if comps == 1 {
		// Noise in the second coordinate gets the same spread as the first.
		for i := 0; i < n; i++ {
			y[2*i+1] *= std
		}
	}
	for i := range y {
		y[i] *= initStd / std
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("tsne: PCA initialisation of point %d is not finite (input values too large?)", i/2)
		}
	}
	return nil
}

// centred returns x (flat n×d) minus its column means as an n×d matrix, and
// the means.
func centred(x []float64, n, d int) (*mat.Dense, []float64) {
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	xc := mat.NewDense(n, d, nil)
	raw := xc.RawMatrix().Data
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			raw[i*d+j] = v - mean[j]
		}
	}
	return xc, mean
}

// reduction projects wide inputs on their leading principal axes.
type reduction struct {
	mean []float64  // column means of the input, length d
	axes *mat.Dense // d×c principal axes
	c    int
}

// reduceInput returns the scores of the n×d points x (flat) on their at most
// maxComponents leading principal axes, found by randomized SVD, as a flat n×c
// matrix, and the reduction that maps further d-dimensional points the same
// way. When the rank of the centred data is below maxComponents (always when
// n ≤ maxComponents) the pairwise distances are kept up to rounding and
// the accuracy of the axes; otherwise the directions of least variance are
// dropped, as scikit-learn's documentation recommends before t-SNE. If all
// points are equal, the scores are one column of zeros.
func reduceInput(ctx context.Context, x []float64, n, d int, seed uint64) (*reduction, []float64, error) {
	xc, mean := centred(x, n, d)
	axes, err := principalAxes(ctx, xc, maxComponents, seed)
	if err != nil {
		return nil, nil, err
	}
	if axes == nil {
		axes = mat.NewDense(d, 1, nil)
	}
	_, c := axes.Dims()
	r := &reduction{mean: mean, axes: axes, c: c}
	scores := mat.NewDense(n, c, nil)
	scores.Mul(xc, axes)
	return r, scores.RawMatrix().Data, nil
}

// project returns the scores of the m points x (flat m×d) on r's axes, flat m×c.
func (r *reduction) project(x []float64, m int) []float64 {
	d := len(r.mean)
	xc := mat.NewDense(m, d, nil)
	raw := xc.RawMatrix().Data
	for i := 0; i < m; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			raw[i*d+j] = v - r.mean[j]
		}
	}
	out := mat.NewDense(m, r.c, nil)
	out.Mul(xc, r.axes)
	return out.RawMatrix().Data
}

// principalAxes returns, as the columns of a d×c matrix (c ≤ k), the leading
// principal axes of the centred n×d matrix xc, in order of decreasing
// variance, or nil if there is none. Axes whose variance is at most 1e-12 of the largest (or zero) are
// left out. Each axis's sign is fixed so that its largest-magnitude loading is
// positive. The exact eigendecomposition of the covariance is used when
// d ≤ exactPCAMaxDims, randomized SVD (seeded by seed) otherwise.
func principalAxes(ctx context.Context, xc *mat.Dense, k int, seed uint64) (*mat.Dense, error) {
	_, d := xc.Dims()
	var (
		vecs *mat.Dense
		rel  []float64 // variance of each candidate axis relative to the largest
		err  error
	)
	if d <= exactPCAMaxDims {
		vecs, rel = exactAxes(xc, k)
	} else {
		vecs, rel, err = randomizedAxes(ctx, xc, k, seed)
		if err != nil {
			return nil, err
		}
	}
	comps := 0
	for comps < len(rel) && comps < k && rel[comps] > 1e-12 {
		comps++
	}
	if comps == 0 {
		return nil, nil
	}
	out := mat.NewDense(d, comps, nil)
	out.Copy(vecs)
	linalg.SignByLargest(out)
	return out, nil
}

// exactAxes returns the eigenvectors of the covariance of xc with the k
// largest eigenvalues (columns, in decreasing order) and those eigenvalues
// divided by the largest. It forms the d×d covariance: small d only. It is not
// shared with ml/features' exact PCA (fitExact), which factors the centred data
// by a thin SVD instead: the axes agree only up to rounding, so one function
// for both would change the bits of the maps or of the models.
func exactAxes(xc *mat.Dense, k int) (*mat.Dense, []float64) {
	n, d := xc.Dims()
	var cov mat.SymDense
	cov.SymOuterK(1/float64(n-1), xc.T())
	var eig mat.EigenSym
	if !eig.Factorize(&cov, true) {
		return nil, nil
	}
	var all mat.Dense
	eig.VectorsTo(&all)
	vals := eig.Values(nil) // ascending
	top := vals[d-1]
	k = min(k, d)
	vecs := mat.NewDense(d, k, nil)
	rel := make([]float64, k)
	for c := 0; c < k; c++ {
		j := d - 1 - c
		if top > 0 && vals[j] > 0 {
			rel[c] = vals[j] / top
		}
		for r := 0; r < d; r++ {
			vecs.Set(r, c, all.At(r, j))
		}
	}
	return vecs, rel
}

// randomizedAxes approximates the k leading right singular vectors of xc
// (the principal axes) by the randomized SVD of linalg.RandomizedSVD (Halko,
// Martinsson & Tropp, "Finding structure with randomness: probabilistic
// algorithms for constructing approximate matrix decompositions", SIAM Review
// 53(2), 2011), with tsne's parameters:
//
//  1. Ω: d×l standard Gaussian test matrix, l = k + p (p = rsvdOversample),
//     drawn from a PCG generator seeded by seed (Sec. 4.1, Alg. 4.1);
//  2. Y = XΩ, then q = rsvdPowerIters power iterations Y ← X(XᵀY) with an
//     orthonormalisation (QR) after every product, which keeps the small
//     singular directions from being lost to rounding (Alg. 4.4, randomized
//     subspace iteration); Q is the orthonormal basis of the final Y;
//  3. B = QᵀX (l×d), its SVD B = ŨΣVᵀ by gonum's mat.SVD (linalg.FactorDirect);
//     the columns of V approximate the right singular vectors of X (Alg. 5.1,
//     direct SVD).
//
// Memory: X itself plus O((n+d)·l) — never a d×d or n×n matrix. The relative
// variances returned are (σ_j/σ_0)², computed as a ratio so that very large
// inputs cannot overflow them. ctx is checked between products.
func randomizedAxes(ctx context.Context, xc *mat.Dense, k int, seed uint64) (*mat.Dense, []float64, error) {
	n, d := xc.Dims()
	k = min(k, maxComponents, n, d)
	rng := rand.New(rand.NewPCG(seed, 0x7273_7664_5f6f_6d65))
	_, sv, v, err := linalg.RandomizedSVD(linalg.Dense{M: xc}, k, rng, linalg.SVDOptions{
		Oversample: rsvdOversample,
		PowerIters: rsvdPowerIters,
		Factor:     linalg.FactorDirect,
		Check:      ctx.Err,
	})
	if err != nil {
		return nil, nil, err
	}
	rel := make([]float64, k)
	for c := range rel {
		if sv[0] > 0 {
			r := sv[c] / sv[0]
			rel[c] = r * r
		}
	}
	return v, rel, nil
}
