package nn

// Dense kernels on row-major slices. Every routine computes C = A·op(B) when acc is
// false and C += A·op(B) when acc is true; m×n is the shape of C and k the inner
// dimension. They are the only matrix products of the package, so that a faster
// implementation replaces them in one place.

// gemmNT: C[m×n] (+)= A[m×k] · B[n×k]ᵀ. tmp (len ≥ n·k) is scratch for Bᵀ.
func gemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool, tmp []float64) {
	if !useAsm {
		gemmNTGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	bt := tmp[:n*k]
	transpose(n, k, b, ldb, bt)
	gemmNN(m, n, k, a, lda, bt, n, c, ldc, acc)
}

// gemmNN: C[m×n] (+)= A[m×k] · B[k×n].
func gemmNN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	if !useAsm {
		gemmNNGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	if !acc {
		clearRows(m, n, c, ldc)
	}
	gemmAsm(m, n, k, a, lda, 1, b, ldb, c, ldc)
}

// gemmTN: C[m×n] (+)= A[k×m]ᵀ · B[k×n].
func gemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	if !useAsm {
		gemmTNGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	if !acc {
		clearRows(m, n, c, ldc)
	}
	gemmAsm(m, n, k, a, 1, lda, b, ldb, c, ldc)
}

func clearRows(m, n int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
}

// transpose writes the r×c row-major matrix b (stride ldb) into bt as c×r row-major.
func transpose(r, c int, b []float64, ldb int, bt []float64) {
	const blk = 32
	for i0 := 0; i0 < r; i0 += blk {
		i1 := min(i0+blk, r)
		for j0 := 0; j0 < c; j0 += blk {
			j1 := min(j0+blk, c)
			for i := i0; i < i1; i++ {
				row := b[i*ldb : i*ldb+c]
				for j := j0; j < j1; j++ {
					bt[j*r+i] = row[j]
				}
			}
		}
	}
}

// kc is the depth of one pass of the micro-kernel (k-blocking keeps a 8-column
// panel of B, kc·64 bytes, in L1).
const kc = 256

// gemmAsm computes C[m×n] += A·B with A(r,p) = a[r·ars + p·aps] and B(p,j) =
// b[p·ldb + j] using the 4×8 AVX2/FMA micro-kernel; blocks at the right and bottom
// edges go through zero-padded copies.
func gemmAsm(m, n, k int, a []float64, ars, aps int, b []float64, ldb int, c []float64, ldc int) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	var (
		apack [4 * kc]float64
		bpack [kc * 8]float64
		cpack [32]float64
	)
	mb, nb := m&^3, n&^7
	for p0 := 0; p0 < k; p0 += kc {
		kk := min(kc, k-p0)
		ab, bb := p0*aps, p0*ldb
		if mb < m {
			for p := 0; p < kk; p++ {
				for r := 0; r < 4; r++ {
					v := 0.0
					if mb+r < m {
						v = a[ab+(mb+r)*ars+p*aps]
					}
					apack[p*4+r] = v
				}
			}
		}
		for j := 0; j < n; j += 8 {
			w := min(8, n-j)
			bp, bld := &b[bb+j], ldb
			if j >= nb {
				for p := 0; p < kk; p++ {
					row := bpack[p*8 : p*8+8]
					o := bb + p*ldb + j
					copy(row[:w], b[o:o+w])
					clear(row[w:])
				}
				bp, bld = &bpack[0], 8
			}
			for i := 0; i < m; i += 4 {
				if i < mb && j < nb {
					kern4x8(kk, &a[ab+i*ars], ars*8, aps*8, bp, bld*8, &c[i*ldc+j], ldc*8)
					continue
				}
				clear(cpack[:])
				if i < mb {
					kern4x8(kk, &a[ab+i*ars], ars*8, aps*8, bp, bld*8, &cpack[0], 64)
				} else {
					kern4x8(kk, &apack[0], 8, 32, bp, bld*8, &cpack[0], 64)
				}
				for r := 0; r < min(4, m-i); r++ {
					cr := c[(i+r)*ldc+j : (i+r)*ldc+j+w]
					for q := range cr {
						cr[q] += cpack[r*8+q]
					}
				}
			}
		}
	}
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
