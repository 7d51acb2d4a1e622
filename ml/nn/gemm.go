package nn

// Dense kernels on row-major slices. Every routine computes C = A·op(B) when acc is
// false and C += A·op(B) when acc is true; m×n is the shape of C and k the inner
// dimension. They are the only matrix products of the package, so that a faster
// implementation replaces them in one place.

// gemmNT: C[m×n] (+)= A[m×k] · B[n×k]ᵀ.
func gemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	gemmNTGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
}

// gemmNN: C[m×n] (+)= A[m×k] · B[k×n].
func gemmNN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	gemmNNGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
}

// gemmTN: C[m×n] (+)= A[k×m]ᵀ · B[k×n].
func gemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	gemmTNGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
}

// Reference implementations in pure Go.

func gemmNTGo(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	for i := 0; i < m; i++ {
		ai := a[i*lda : i*lda+k]
		ci := c[i*ldc : i*ldc+n]
		for j := 0; j < n; j++ {
			bj := b[j*ldb : j*ldb+k]
			var s float64
			for p, v := range ai {
				s += v * bj[p]
			}
			if acc {
				ci[j] += s
			} else {
				ci[j] = s
			}
		}
	}
}

func gemmNNGo(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if !acc {
			clear(ci)
		}
		ai := a[i*lda : i*lda+k]
		for p, v := range ai {
			bp := b[p*ldb : p*ldb+n]
			for j, w := range bp {
				ci[j] += v * w
			}
		}
	}
}

func gemmTNGo(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	if !acc {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
	}
	for p := 0; p < k; p++ {
		ap := a[p*lda : p*lda+m]
		bp := b[p*ldb : p*ldb+n]
		for i, v := range ap {
			ci := c[i*ldc : i*ldc+n]
			for j, w := range bp {
				ci[j] += v * w
			}
		}
	}
}
