// Package linalg holds the project's one randomized range finder and
// randomized truncated SVD (Halko, Martinsson & Tropp 2011), with the
// Householder orthonormalisation they rely on and the sign convention of
// singular vectors, for the packages that need a truncated SVD of data too
// large to factor exactly: ml/features (the PCA of the term features),
// ml/baselines (LSA, PPMI-SVD) and tsne (the PCA of wide inputs). It imports
// nothing of the project (gonum only), so tsne can use it without importing
// ml.
//
// The variants of the callers are parameters (SVDOptions), not copies: the
// number of oversampling directions, of subspace iterations, which form of
// the small projected matrix is factored, whether U is formed. Each caller
// seeds its own generator, so a caller's results are those it had with its
// own copy, bit for bit.
package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// An Operator is a linear map known only through its products with dense
// blocks, so that a large sparse matrix (or a product of sparse matrices, or
// an implicitly centred one) never has to be formed densely. The randomized
// SVD works on Operators.
type Operator interface {
	// Dims returns the shape r×c of the operator A.
	Dims() (r, c int)
	// MulTo sets dst = A·x (trans false; x is c×k, dst is r×k) or dst = Aᵀ·x
	// (trans true; x is r×k, dst is c×k), overwriting dst. dst must have the
	// right shape and must not alias x. It panics on a shape mismatch.
	MulTo(dst *mat.Dense, trans bool, x *mat.Dense)
}

// Dense is the Operator of a dense matrix M: its products are gonum's
// (mat.Dense.Mul).
type Dense struct{ M *mat.Dense }

// Dims returns the shape of M.
func (d Dense) Dims() (r, c int) { return d.M.Dims() }

// MulTo implements Operator.
func (d Dense) MulTo(dst *mat.Dense, trans bool, x *mat.Dense) {
	if trans {
		dst.Mul(d.M.T(), x)
	} else {
		dst.Mul(d.M, x)
	}
}

// DefaultOversample is the number p of extra random directions when
// SVDOptions.Oversample is not positive (Halko et al. 2011, §4.2: p = 5 or 10).
const DefaultOversample = 10

// Factor is the form of the small projected matrix B = QᵀA (l×c) whose exact
// SVD gives the truncated SVD of A. Both give the same factorisation up to
// rounding; they differ in the bits, so each caller keeps the one it was
// validated with.
type Factor int

const (
	// FactorTransposed factors the tall Bᵀ = AᵀQ (c×l): Bᵀ = Ũ'ΣṼ'ᵀ, so
	// V = Ũ' and U = Q·Ṽ'. It needs only products of A (ml/features).
	FactorTransposed Factor = iota
	// FactorDirect factors the wide B = QᵀA (l×c) itself: B = ŨΣVᵀ and
	// U = Q·Ũ (tsne). B is formed as the transpose of AᵀQ, which for a Dense
	// operator is bit for bit gonum's product Qᵀ·M (the same sums in the same
	// order).
	FactorDirect
)

// SVDOptions are the parameters of RandomizedSVD. The zero value means p =
// DefaultOversample, no subspace iteration, FactorTransposed, no U, no
// cancellation.
type SVDOptions struct {
	// Oversample is the number p of extra random directions; not positive
	// means DefaultOversample.
	Oversample int
	// PowerIters is the number q of subspace (power) iterations; not positive
	// means none.
	PowerIters int
	// Factor is the form of the small matrix factored exactly.
	Factor Factor
	// WantU asks for the left singular vectors U = Q·Ũ (r×k); without it U is
	// nil and its r×l×k product is saved.
	WantU bool
	// Check, when set, is called before each product with the operator; its
	// error stops the SVD and is returned.
	Check func() error
}

// RandomizedSVD returns an approximate rank-k truncated SVD A ≈ U·diag(s)·Vᵀ
// of the r×c operator a, by randomized subspace iteration (Halko, Martinsson &
// Tropp 2011, Algorithm 4.4, then the direct SVD of Algorithm 5.1): with
// l = k + p directions, Q = RangeFinder(a, l, q, rng) (r×l, orthonormal),
// then the exact thin SVD of B = QᵀA (in the form o.Factor) gives Σ and V,
// and U = Q·Ũ. Shapes: U r×k (nil unless o.WantU), s k (decreasing), V c×k;
// l is capped at min(r, c). Cost: (2q+2) products of a with an l-column
// block plus O((r+c)·l²). It returns o.Check's error if that stops it, an
// error if the small SVD does not converge, and panics if k < 1 or
// k > min(r, c).
func RandomizedSVD(a Operator, k int, rng *rand.Rand, o SVDOptions) (u *mat.Dense, s []float64, v *mat.Dense, err error) {
	r, c := a.Dims()
	if k < 1 || k > min(r, c) {
		panic(fmt.Sprintf("linalg: RandomizedSVD rank %d outside [1, %d]", k, min(r, c)))
	}
	p := o.Oversample
	if p <= 0 {
		p = DefaultOversample
	}
	check := o.Check
	if check == nil {
		check = func() error { return nil }
	}
	l := min(k+p, r, c)
	q, err := rangeFinder(a, l, o.PowerIters, rng, check)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := check(); err != nil {
		return nil, nil, nil, err
	}
	bt := mat.NewDense(c, l, nil)
	a.MulTo(bt, true, q) // Bᵀ = AᵀQ
	var svd mat.SVD
	var ub, vb mat.Dense // the factors of the matrix factored
	switch o.Factor {
	case FactorDirect:
		b := mat.NewDense(l, c, nil)
		b.Copy(bt.T())
		if !svd.Factorize(b, mat.SVDThin) {
			return nil, nil, nil, fmt.Errorf("linalg: randomized SVD: the SVD of the %d×%d projection did not converge", l, c)
		}
		svd.UTo(&ub)
		svd.VTo(&vb)
		v = mat.NewDense(c, k, nil)
		v.Copy(vb.Slice(0, c, 0, k))
		if o.WantU {
			u = mat.NewDense(r, k, nil)
			u.Mul(q, ub.Slice(0, l, 0, k))
		}
	default:
		if !svd.Factorize(bt, mat.SVDThin) {
			return nil, nil, nil, fmt.Errorf("linalg: randomized SVD: the SVD of the %d×%d projection did not converge", c, l)
		}
		svd.UTo(&ub)
		svd.VTo(&vb)
		v = mat.NewDense(c, k, nil)
		v.Copy(ub.Slice(0, c, 0, k))
		if o.WantU {
			u = mat.NewDense(r, k, nil)
			u.Mul(q, vb.Slice(0, l, 0, k))
		}
	}
	return u, svd.Values(nil)[:k], v, nil
}

// RangeFinder returns an r×l matrix Q with orthonormal columns whose span
// approximates the range of the leading l singular directions of the r×c
// operator a (Halko et al. 2011, Algorithm 4.4, randomized subspace
// iteration): Ω is a c×l standard Gaussian matrix drawn from rng (row-major),
// Q = orth(A·Ω), then q times Q = orth(A·orth(Aᵀ·Q)); the orthonormalisation
// after every product keeps the small singular directions from being lost to
// rounding. q ≤ 0 means no iteration. It panics unless 1 ≤ l ≤ min(r, c).
func RangeFinder(a Operator, l, q int, rng *rand.Rand) *mat.Dense {
	r, c := a.Dims()
	if l < 1 || l > min(r, c) {
		panic(fmt.Sprintf("linalg: RangeFinder width %d outside [1, %d]", l, min(r, c)))
	}
	y, _ := rangeFinder(a, l, q, rng, func() error { return nil })
	return y
}

// rangeFinder is RangeFinder that calls check before each product with a and
// stops with its error.
func rangeFinder(a Operator, l, q int, rng *rand.Rand, check func() error) (*mat.Dense, error) {
	r, c := a.Dims()
	omega := mat.NewDense(c, l, nil)
	od := omega.RawMatrix().Data
	for i := range od {
		od[i] = rng.NormFloat64()
	}
	y := mat.NewDense(r, l, nil)
	if err := check(); err != nil {
		return nil, err
	}
	a.MulTo(y, false, omega)
	Orthonormalize(y)
	z := omega // its storage is free once Y = AΩ is formed
	for it := 0; it < q; it++ {
		if err := check(); err != nil {
			return nil, err
		}
		a.MulTo(z, true, y)
		Orthonormalize(z)
		if err := check(); err != nil {
			return nil, err
		}
		a.MulTo(y, false, z)
		Orthonormalize(y)
	}
	return y, nil
}

// Orthonormalize replaces the columns of the m×n matrix y (m ≥ n) by an
// orthonormal basis of their span, in place: the thin factor Q of its
// Householder QR decomposition, by LAPACK's Geqrf and Orgqr through gonum's
// lapack64 — the routines behind gonum's mat.QR — because mat.QR.QTo only
// returns the full m×m Q, the quadratic memory the randomized SVD avoids.
func Orthonormalize(y *mat.Dense) {
	raw := y.RawMatrix()
	g := blas64.General{Rows: raw.Rows, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data}
	tau := make([]float64, min(g.Rows, g.Cols))
	work := make([]float64, 1)
	lapack64.Geqrf(g, tau, work, -1)
	lw := int(work[0])
	lapack64.Orgqr(g, tau, work, -1)
	lw = max(lw, int(work[0]), g.Cols, 1)
	work = make([]float64, lw)
	lapack64.Geqrf(g, tau, work, lw)
	lapack64.Orgqr(g, tau, work, lw)
}

// SignByLargest fixes the sign of every column of m, in place, so that its
// entry of largest magnitude (the first of equal ones) is positive: singular
// vectors are defined up to sign, and this makes them deterministic across
// runs and methods. A column of zeros (or NaNs) is left as it is.
func SignByLargest(m *mat.Dense) {
	raw := m.RawMatrix()
	for j := 0; j < raw.Cols; j++ {
		best, arg := -1.0, 0
		for i := 0; i < raw.Rows; i++ {
			if a := math.Abs(raw.Data[i*raw.Stride+j]); a > best {
				best, arg = a, i
			}
		}
		if raw.Data[arg*raw.Stride+j] < 0 {
			for i := 0; i < raw.Rows; i++ {
				raw.Data[i*raw.Stride+j] = -raw.Data[i*raw.Stride+j]
			}
		}
	}
}
