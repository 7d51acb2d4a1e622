package nn

// Dense matrix products for other packages of ml (the blocked Cholesky
// inverse of EASE^R in ml/baselines): the same kernels as the network's
// products, on row-major slices with leading dimensions. Each runs on the
// calling goroutine and sums every element of C in a fixed order (products in
// increasing depth within blocks of kc, then the blocks in order), so its
// result depends only on its inputs.

// MulNT computes C[m×n] = A[m×k]·B[n×k]ᵀ, or C += A·Bᵀ when acc.
func MulNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	gemmNT(m, n, k, a, lda, b, ldb, c, ldc, acc, nil)
}

// MulNN computes C[m×n] = A[m×k]·B[k×n], or C += A·B when acc.
func MulNN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	gemmNN(m, n, k, a, lda, b, ldb, c, ldc, acc, nil)
}

// MulTN computes C[m×n] = A[k×m]ᵀ·B[k×n], or C += Aᵀ·B when acc.
func MulTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	gemmTN(m, n, k, a, lda, b, ldb, c, ldc, acc, nil)
}
