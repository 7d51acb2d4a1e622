package nn

import "sync"

// Dense kernels on row-major slices. Every routine computes C = A·op(B) when acc is
// false and C += A·op(B) when acc is true; m×n is the shape of C and k the inner
// dimension; pb is the packing scratch of the caller (nil: a pooled one). They are the only matrix products of the package, so that a faster
// implementation replaces them in one place.

// gemmNT: C[m×n] (+)= A[m×k] · B[n×k]ᵀ.
func gemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool, pb *packBuf) {
	if !useAsm {
		gemmNTGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	gemmAsm(m, n, k, a, lda, 1, b, 1, ldb, c, ldc, acc, pb, nil)
}

// gemmNN: C[m×n] (+)= A[m×k] · B[k×n].
func gemmNN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool, pb *packBuf) {
	if !useAsm {
		gemmNNGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	gemmAsm(m, n, k, a, lda, 1, b, ldb, 1, c, ldc, acc, pb, nil)
}

// gemmTN: C[m×n] (+)= A[k×m]ᵀ · B[k×n].
func gemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool, pb *packBuf) {
	if !useAsm {
		gemmTNGo(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	gemmAsm(m, n, k, a, 1, lda, b, ldb, 1, c, ldc, acc, pb, nil)
}

func clearRows(m, n int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
}

// Blocking of gemmAsm (Goto/BLIS scheme): a kc×nc block of B and an mc×kc block of A
// are packed into zero-padded panels of NR columns and MR rows, and the
// micro-kernel runs over every MR×NR tile of C with depth kc. A B panel (kc·NR
// values) stays in L1 while the A panels of the block stream from L2.
//
// Both micro-kernels sum an element of C the same way: a chain of fused
// multiply-adds from zero over the kc steps of a depth block, then one addition
// to C. With one kc for both, a product has the same bits on an AVX2 machine as
// on an AVX-512 one, and so does a trained model (TestKernelGemmSameBits,
// TestKernelTrainerSameBits); 128 keeps the 8×16 kernel's B panel at 16 KiB
// (the 6×8 one's at 8 KiB).
const (
	kc    = 128 // depth of a block, both kernels
	mcMax = 240 // rows of A per packed block (multiple of every MR)
	ncMax = 512 // columns of B per packed block (multiple of every NR)
)

// packBuf holds the packed blocks of a gemmAsm call; a Workspace owns one.
type packBuf struct {
	a, b []float64
	tile [6 * 8]float64 // edge tiles of the 6×8 kernel
}

var packPool = sync.Pool{New: func() any { return new(packBuf) }}

// gemmAsm computes C[m×n] = A·B (acc false) or C += A·B (acc true) with A(i,p) =
// a[i·ars + p·aps] and B(p,j) = b[p·bps + j·bjs] using the packed micro-kernels:
// 8×16 with AVX-512 (useAVX512), else 6×8 with AVX2/FMA. For every element of C the
// products are summed in increasing p within a depth block of kc and the blocks are
// added in order, so results depend only on the inputs, the same with either
// kernel. If pre is not nil it holds B already packed by packNT for the current
// kernel (b is then unused).
// Kept in one function: the blocking loops, the packing and the kernel calls
// share one set of offsets, and their order fixes the summation order the
// results depend on.
func gemmAsm(m, n, k int, a []float64, ars, aps int, b []float64, bps, bjs int, c []float64, ldc int, acc bool, pb *packBuf, pre []float64) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !acc {
			clearRows(m, n, c, ldc)
		}
		return
	}
	mr, nr := 6, 8
	if useAVX512 {
		mr, nr = 8, 16
	}
	_ = c[(m-1)*ldc+n-1]
	pooled := pb == nil
	if pooled {
		pb = packPool.Get().(*packBuf)
	}
	for j0 := 0; j0 < n; j0 += ncMax {
		nc := min(ncMax, n-j0)
		ncp := (nc + nr - 1) / nr * nr
		for p0 := 0; p0 < k; p0 += kc {
			kk := min(kc, k-p0)
			add := acc || p0 > 0
			// B panels are read in place when B is row-major (bjs = 1), except a
			// partial last panel; otherwise packed (or pre-packed).
			directB := pre == nil && bjs == 1
			var bpk []float64
			switch {
			case pre != nil:
				bpk, pre = pre[:kk*ncp], pre[kk*ncp:]
			case directB:
				if nc%nr != 0 {
					q := nc / nr
					pb.b = grow(pb.b, kk*nr)
					packB(pb.b, b, bps, bjs, p0, kk, j0+q*nr, nc-q*nr, nr)
				}
			default:
				pb.b = grow(pb.b, kk*ncp)
				packB(pb.b, b, bps, bjs, p0, kk, j0, nc, nr)
				bpk = pb.b
			}
			for i0 := 0; i0 < m; i0 += mcMax {
				mc := min(mcMax, m-i0)
				// A is read in place, except a partial last panel of rows.
				if mc%mr != 0 {
					q := mc / mr
					pb.a = grow(pb.a, kk*mr)
					packA(pb.a, a, ars, aps, i0+q*mr, mc-q*mr, p0, kk, mr)
				}
				for jr := 0; jr < nc; jr += nr {
					w := min(nr, nc-jr)
					var bp *float64
					bs := nr * 8
					switch {
					case !directB:
						bp = &bpk[jr*kk]
					case w == nr:
						bp, bs = &b[p0*bps+j0+jr], bps*8
					default:
						bp = &pb.b[0]
					}
					for ir := 0; ir < mc; ir += mr {
						h := min(mr, mc-ir)
						var ap *float64
						ars8, aps8 := ars*8, aps*8
						if h == mr {
							ap = &a[(i0+ir)*ars+p0*aps]
						} else {
							ap, ars8, aps8 = &pb.a[0], 8, mr*8
						}
						ci := (i0+ir)*ldc + j0 + jr
						if useAVX512 {
							// Edge tiles by masked stores.
							kernP8x16(kk, ap, ars8, aps8, bp, bs, &c[ci], ldc*8, h, 1<<w-1, add)
							continue
						}
						if w == nr && h == mr {
							kernP6x8(kk, ap, ars8, aps8, bp, bs, &c[ci], ldc*8, add)
							continue
						}
						if w == nr && (h == 4 || h == 2) {
							kernRows(h, kk, ap, ars8, aps8, bp, bs, &c[ci], ldc*8, add)
							continue
						}
						// An edge tile: h rows (of the packed, zero-padded
						// panel) by the kernel of the fewest rows that covers
						// them, stored in the tile, then w columns copied.
						kernRows(min(mr, (h+1)&^1), kk, ap, ars8, aps8, bp, bs, &pb.tile[0], nr*8, false)
						for r := 0; r < h; r++ {
							dst := c[ci+r*ldc : ci+r*ldc+w]
							src := pb.tile[r*nr : r*nr+w]
							if add {
								for q, v := range src {
									dst[q] += v
								}
							} else {
								copy(dst, src)
							}
						}
					}
				}
			}
		}
	}
	if pooled {
		packPool.Put(pb)
	}
}

// kernRows runs the AVX2 kernel of rows rows (6, 4 or 2) on a tile of 8
// columns: an edge of fewer than 6 rows costs its own rows, not a full tile.
func kernRows(rows, k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool) {
	switch rows {
	case 6:
		kernP6x8(k, a, ars, aps, b, bs, c, ldc, add)
	case 4:
		kernP4x8(k, a, ars, aps, b, bs, c, ldc, add)
	default:
		kernP2x8(k, a, ars, aps, b, bs, c, ldc, add)
	}
}

// packNT returns w (n×k, row-major) packed as the B operand of gemmAsm for
// C = A·wᵀ, i.e. B(p,j) = w[j·k + p], in the block order of gemmAsm for the current
// kernel, reusing dst when it is large enough. Forward passes that share a weight
// matrix (the parts of a Trainer) pack it once.
func packNT(dst, w []float64, n, k int) []float64 {
	dst = grow(dst, packNTLen(n, k))
	packNTSegments(dst, w, n, k, func(int) bool { return true })
	return dst
}

// packNTLen returns the length of the packed form of an n×k weight matrix.
func packNTLen(n, k int) int {
	nr := 8
	if useAVX512 {
		nr = 16
	}
	size := 0
	for j0 := 0; j0 < n; j0 += ncMax {
		size += k * ((min(ncMax, n-j0) + nr - 1) / nr * nr)
	}
	return size
}

// packNTSegments packs the blocks (segments) s of packNT for which sel(s) is true
// into dst (len ≥ packNTLen(n, k)) and returns the number of segments; disjoint
// selections may run concurrently.
func packNTSegments(dst, w []float64, n, k int, sel func(s int) bool) int {
	nr := 8
	if useAVX512 {
		nr = 16
	}
	off, s := 0, 0
	for j0 := 0; j0 < n; j0 += ncMax {
		nc := min(ncMax, n-j0)
		ncp := (nc + nr - 1) / nr * nr
		for p0 := 0; p0 < k; p0 += kc {
			kk := min(kc, k-p0)
			if sel(s) {
				packB(dst[off:off+kk*ncp], w, 1, k, p0, kk, j0, nc, nr)
			}
			off += kk * ncp
			s++
		}
	}
	return s
}

// packA writes rows i0..i0+mc-1, depths p0..p0+kk-1 of A(i,p) = a[i·ars + p·aps]
// into panels of mr rows: dst[q·kk·mr + p·mr + r] = A(i0+q·mr+r, p0+p), zero past
// row mc.
func packA(dst, a []float64, ars, aps, i0, mc, p0, kk, mr int) {
	packPanels(dst, a, ars, aps, i0, mc, p0, kk, mr)
}

// packB writes depths p0..p0+kk-1, columns j0..j0+nc-1 of B(p,j) = b[p·bps + j·bjs]
// into panels of nr columns: dst[q·kk·nr + p·nr + j] = B(p0+p, j0+q·nr+j), zero past
// column nc.
func packB(dst, b []float64, bps, bjs, p0, kk, j0, nc, nr int) {
	packPanels(dst, b, bjs, bps, j0, nc, p0, kk, nr)
}

// packPanels is packA and packB: lanes l0..l0+nl-1 (rows of A, columns of B)
// and depths p0..p0+kk-1 of X(l,p) = x[l·ls + p·ds] into panels of w lanes,
// dst[q·kk·w + p·w + r] = X(l0+q·w+r, p0+p), zero past lane nl.
func packPanels(dst, x []float64, ls, ds, l0, nl, p0, kk, w int) {
	for q := 0; q*w < nl; q++ {
		panel := dst[q*kk*w : (q+1)*kk*w]
		lanes := min(w, nl-q*w)
		base := (l0 + q*w) * ls
		switch {
		case ds == 1:
			transposeInto(panel, w, x[base+p0:], ls, lanes, kk)
		case ls == 1:
			copyRuns(panel, w, x[base+p0*ds:], ds, lanes, kk)
		default:
			for p := 0; p < kk; p++ {
				for r := 0; r < lanes; r++ {
					panel[p*w+r] = x[base+r*ls+(p0+p)*ds]
				}
			}
		}
		if lanes < w {
			for p := 0; p < kk; p++ {
				clear(panel[p*w+lanes : (p+1)*w])
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

// transposeInto sets dst[p·ld + r] = src[r·lds + p] for r < rows, p < kk: rows
// contiguous runs of src become columns of dst. It reads four runs at a time so that
// every destination row is written in one short contiguous piece.
func transposeInto(dst []float64, ld int, src []float64, lds, rows, kk int) {
	r := 0
	for ; r+4 <= rows; r += 4 {
		s0 := src[r*lds : r*lds+kk]
		s1 := src[(r+1)*lds : (r+1)*lds+kk]
		s2 := src[(r+2)*lds : (r+2)*lds+kk]
		s3 := src[(r+3)*lds : (r+3)*lds+kk]
		_ = dst[(kk-1)*ld+r+3]
		for p, v := range s0 {
			d := dst[p*ld+r : p*ld+r+4 : p*ld+r+4]
			d[0], d[1], d[2], d[3] = v, s1[p], s2[p], s3[p]
		}
	}
	for ; r < rows; r++ {
		for p, v := range src[r*lds : r*lds+kk] {
			dst[p*ld+r] = v
		}
	}
}

// copyRuns sets dst[p·ld + r] = src[p·lds + r] for r < w, p < kk, with fixed-size
// copies for full panels of 8 or 16 (runtime.memmove is slow for such short runs).
func copyRuns(dst []float64, ld int, src []float64, lds, w, kk int) {
	switch {
	case w == 16 && ld == 16:
		for p := 0; p < kk; p++ {
			d, s := (*[16]float64)(dst[p*16:]), (*[16]float64)(src[p*lds:])
			*(*[4]float64)(d[0:]) = *(*[4]float64)(s[0:])
			*(*[4]float64)(d[4:]) = *(*[4]float64)(s[4:])
			*(*[4]float64)(d[8:]) = *(*[4]float64)(s[8:])
			*(*[4]float64)(d[12:]) = *(*[4]float64)(s[12:])
		}
	case w == 8 && ld == 8:
		for p := 0; p < kk; p++ {
			d, s := (*[8]float64)(dst[p*8:]), (*[8]float64)(src[p*lds:])
			*(*[4]float64)(d[0:]) = *(*[4]float64)(s[0:])
			*(*[4]float64)(d[4:]) = *(*[4]float64)(s[4:])
		}
	case w == 4 && ld == 4:
		for p := 0; p < kk; p++ {
			*(*[4]float64)(dst[p*4:]) = *(*[4]float64)(src[p*lds:])
		}
	default:
		for p := 0; p < kk; p++ {
			o := p * lds
			copy(dst[p*ld:p*ld+w], src[o:o+w])
		}
	}
}
