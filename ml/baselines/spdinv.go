package baselines

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/taglens/taglens/ml/nn"
)

// spdBlock is the block size of spdInverse: the depth of nn's GEMM blocks, so
// each block product is one depth block of the kernel.
const spdBlock = 128

// spdInverse overwrites a (n×n, row-major, symmetric positive definite) with
// its inverse, using scratch (n×n) as workspace, in three blocked passes whose
// products run on nn's GEMM kernels:
//
//  1. Cholesky factorisation A = L·Lᵀ, L lower triangular, right-looking
//     (LAPACK's dpotrf in blocks of spdBlock): each block column is factored,
//     the blocks below it solved against its diagonal block, and the trailing
//     matrix updated by A₂₂ −= L₂₁·L₂₁ᵀ;
//  2. X = L⁻¹ block column by block column (dtrtri): X_JJ = L_JJ⁻¹ and, going
//     down, X_IJ = −X_II·Σ_{J≤K<I} L_IK·X_KJ;
//  3. A⁻¹ = Xᵀ·X (dlauum), the upper blocks P_IJ = Σ_{K≥J} X_KIᵀ·X_KJ, then
//     mirrored.
//
// The work of each pass is shared by up to GOMAXPROCS goroutines, each block
// computed whole by one of them in a fixed order, so the result has the same
// bits for any number of processors. It returns false, leaving a undefined,
// when a pivot is not positive and finite (a is not positive definite), and
// ctx.Err() is checked between block columns.
func spdInverse(ctx context.Context, a, scratch []float64, n int) (ok bool, err error) {
	if ok, err = spdCholesky(ctx, a, n); !ok || err != nil {
		return ok, err
	}
	x := scratch[:n*n]
	clear(x)
	spdTriInverse(a, x, n)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	spdLauum(x, a, n)
	return true, nil
}

// spdBlocks returns the start of every block of n rows and n itself.
func spdBlocks(n int) []int {
	var b []int
	for i := 0; i < n; i += spdBlock {
		b = append(b, i)
	}
	return append(b, n)
}

// spdParallel runs f(0), …, f(n−1) on up to GOMAXPROCS goroutines, each index
// on one goroutine.
func spdParallel(n int, f func(i int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// spdCholesky factors a in place: its lower triangle becomes L (the strict
// upper triangle is left as it was).
func spdCholesky(ctx context.Context, a []float64, n int) (bool, error) {
	bs := spdBlocks(n)
	nb := len(bs) - 1
	neg := make([]float64, n*spdBlock)         // −L₂₁ of the current block column
	linv := make([]float64, spdBlock*spdBlock) // L₁₁⁻¹, lower, zero above
	for k := range nb {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		k0, k1 := bs[k], bs[k+1]
		kb := k1 - k0
		// The diagonal block, unblocked (row-oriented Cholesky–Crout).
		for i := k0; i < k1; i++ {
			ri := a[i*n : i*n+n]
			for j := k0; j <= i; j++ {
				rj := a[j*n : j*n+n]
				s := ri[j]
				for p := k0; p < j; p++ {
					s -= ri[p] * rj[p]
				}
				if i == j {
					if !(s > 0) || math.IsInf(s, 0) {
						return false, nil
					}
					ri[i] = math.Sqrt(s)
				} else {
					ri[j] = s / rj[j]
				}
			}
		}
		if k1 == n {
			break
		}
		// The blocks below: L₂₁ = A₂₁·L₁₁⁻ᵀ, with L₁₁⁻¹ formed once (column-wise
		// forward substitution) so that the product runs on the kernel.
		clear(linv)
		for c := range kb {
			linv[c*kb+c] = 1 / a[(k0+c)*n+k0+c]
			for i := c + 1; i < kb; i++ {
				var s float64
				for p := c; p < i; p++ {
					s += a[(k0+i)*n+k0+p] * linv[p*kb+c]
				}
				linv[i*kb+c] = -s / a[(k0+i)*n+k0+i]
			}
		}
		rows := n - k1
		spdParallel((rows+spdBlock-1)/spdBlock, func(b int) {
			i0 := k1 + b*spdBlock
			h := min(spdBlock, n-i0)
			nr := neg[(i0-k1)*kb : (i0-k1+h)*kb]
			nn.MulNT(h, kb, kb, a[i0*n+k0:], n, linv, kb, nr, kb, false)
			for i := range h {
				ri := a[(i0+i)*n+k0 : (i0+i)*n+k1]
				for p, x := range nr[i*kb : (i+1)*kb] {
					ri[p] = x
					nr[i*kb+p] = -x
				}
			}
		})
		// The trailing matrix, lower part: A_IJ −= L_IK·L_JKᵀ for every block
		// row I, columns k1 up to the end of I.
		spdParallel(nb-k-1, func(b int) {
			i0, i1 := bs[k+1+b], bs[k+2+b]
			nn.MulNT(i1-i0, i1-k1, kb, neg[(i0-k1)*kb:], kb, a[k1*n+k0:], n, a[i0*n+k1:], n, true)
		})
	}
	return true, nil
}

// spdTriInverse writes X = L⁻¹ into x (zero on entry), L the lower triangle of
// l; x's strict upper triangle stays zero.
func spdTriInverse(l, x []float64, n int) {
	bs := spdBlocks(n)
	nb := len(bs) - 1
	// The diagonal blocks: X_JJ = L_JJ⁻¹ by column-wise forward substitution.
	spdParallel(nb, func(jb int) {
		j0, j1 := bs[jb], bs[jb+1]
		for c := j0; c < j1; c++ {
			x[c*n+c] = 1 / l[c*n+c]
			for i := c + 1; i < j1; i++ {
				var s float64
				for p := c; p < i; p++ {
					s += l[i*n+p] * x[p*n+c]
				}
				x[i*n+c] = -s / l[i*n+i]
			}
		}
	})
	// Below them, block column by block column, each on one goroutine.
	spdParallel(nb, func(jb int) {
		j0, j1 := bs[jb], bs[jb+1]
		w := j1 - j0
		t, u := make([]float64, spdBlock*w), make([]float64, spdBlock*w)
		for ib := jb + 1; ib < nb; ib++ {
			i0, i1 := bs[ib], bs[ib+1]
			h := i1 - i0
			// T = Σ_{J≤K<I} L_IK·X_KJ: one product over the rows j0..i0−1.
			nn.MulNN(h, w, i0-j0, l[i0*n+j0:], n, x[j0*n+j0:], n, t, w, false)
			// X_IJ = −X_II·T (X_II lower triangular, zero above in x).
			nn.MulNN(h, w, h, x[i0*n+i0:], n, t, w, u, w, false)
			for i := range h {
				out := x[(i0+i)*n+j0 : (i0+i)*n+j1]
				for c, v := range u[i*w : (i+1)*w] {
					out[c] = -v
				}
			}
		}
	})
}

// spdLauum writes P = Xᵀ·X into p (full, symmetric), X lower triangular in x
// with a zero strict upper triangle.
func spdLauum(x, p []float64, n int) {
	bs := spdBlocks(n)
	nb := len(bs) - 1
	type pair struct{ i, j int }
	var pairs []pair
	for i := range nb {
		for j := i; j < nb; j++ {
			pairs = append(pairs, pair{i, j})
		}
	}
	spdParallel(len(pairs), func(q int) {
		ib, jb := pairs[q].i, pairs[q].j
		i0, i1, j0, j1 := bs[ib], bs[ib+1], bs[jb], bs[jb+1]
		// P_IJ = Σ_{K≥J} X_KIᵀ·X_KJ over the rows j0..n−1.
		nn.MulTN(i1-i0, j1-j0, n-j0, x[j0*n+i0:], n, x[j0*n+j0:], n, p[i0*n+j0:], n, false)
	})
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			p[j*n+i] = p[i*n+j]
		}
	}
}
