package tsne

import "math"

// Interpolation settings of the FFT method (Linderman et al. 2019, Sec. 3):
// every point interpolates from the fftInterp×fftInterp grid nodes around it
// (a window centred on the point: for four nodes per axis, the point lies
// between the middle two), node spacing at most fftSpacing, at least
// fftMinNodes nodes per axis. FIt-SNE uses fixed boxes of width 1 with 3
// nodes each (spacing 1/3, at least 150 nodes), so points near a box edge
// extrapolate. Lagrange interpolation's error at u is f⁽ᵖ⁾(ξ)/p! · Π_k (u −
// u_k); a centred window keeps the nodal product small (≤ 0.56h⁴ for four
// nodes at spacing h, against 1.875h³ for three nodes at FIt-SNE's box
// edge). But the kernel (1+r²)⁻² has poles at distance 1 from the real axis,
// so a higher order does not make up for a coarse grid: on the layout of
// TestRepulsionAccuracy the force error was 8.3 % for 3 nodes at spacing
// 0.71, 2.6 % for 4 at 0.5, 1.5 % for 4 at 0.42 and for 3 at 0.35, 6.2 % for
// 5 and 8.8 % for 6 at 0.71. On 5,000 blobs (docs/tsne.md) 4 nodes at spacing
// ≤ 0.5 gave KL 1.971–1.973 and 10-NN preservation 0.213–0.216 (seeds 1–3),
// at ≤ 0.4 1.965–1.966 and 0.217–0.218 (seeds 2, 3; FIt-SNE: 1.981, 0.216)
// for a third more CPU time, 5 nodes at ≤ 0.5 1.987 and 0.206; the former default, 3
// nodes at ≤ 2/3, 2.034 and 0.182.
const (
	fftInterp   = 4
	fftSpacing  = 0.4
	fftMinNodes = 32
)

// fftGrad is the FIt-SNE gradient (Linderman et al. 2019): the attractive term
// over the sparse P as in Barnes-Hut, and the repulsive sums through the
// squared Cauchy kernel K(y, y') = (1+‖y−y'‖²)⁻² with charges
// q = (1, y₁, y₂, ‖y‖²):
//
//	φ_k(y_i) = Σ_j K(y_i, y_j) q_k(y_j)
//	Σ_j w_ij² (y_i − y_j) = y_i φ₁ − (φ₂, φ₃)
//	Z = Σ_i [(1+‖y_i‖²) φ₁ − 2 y_i·(φ₂, φ₃) + φ₄] − n   (since K·(1+‖y_i−y_j‖²) = w_ij)
//
// Each φ_k is evaluated by spreading the charges onto an equispaced grid of
// Lagrange interpolation nodes (fftInterp per box), convolving with the kernel
// on the grid by a zero-padded 2-D FFT (the kernel matrix between nodes is
// block Toeplitz) and interpolating back to the points.
type fftGrad struct {
	P       *csr
	n       int
	workers int
	plogp   float64
	attr    []float64
	klpart  []float64

	// Grid state, resized when the embedding spreads.
	m       int // FFT size per axis (power of two ≥ 2·nodes)
	nodes   int // interpolation nodes per axis
	plan    *fftPlan
	kern    []float64    // m×m real spectrum of the circulant kernel
	a, b    []complex128 // m×m packed grids: a = q₁ + i q₂, b = q₃ + i q₄
	colA    [][]complex128
	colB    [][]complex128
	work    [][]complex128 // per worker: FFT scratch of length m
	box     []int32        // per point: node index of its box's first node (row·nodes + col)
	wts     []float64      // per point: fftInterp x-weights then fftInterp y-weights
	phi     []float64      // per point: φ₁..φ₄
	zpart   []float64
	c0, c1  float64 // grid centre; charges use coordinates relative to it
	h       float64 // node spacing of the current kernel spectrum
	spacing float64 // node spacing bound, fftSpacing
	kbuf    []complex128
}

func newFFTGrad(P *csr, n, workers int) *fftGrad {
	return &fftGrad{
		P: P, n: n, workers: workers, plogp: P.plogp(),
		attr: make([]float64, 2*n), klpart: make([]float64, numBlocks(n)),
		box: make([]int32, n), wts: make([]float64, 2*fftInterp*n), phi: make([]float64, 4*n),
		zpart: make([]float64, numBlocks(n)), spacing: fftSpacing,
	}
}

// lagrange writes the fftInterp Lagrange basis polynomials for the nodes
// 0, 1, …, p−1 evaluated at u (in units of the node spacing).
func lagrange(u float64, w []float64) {
	p := fftInterp
	for k := 0; k < p; k++ {
		v := 1.0
		for m := 0; m < p; m++ {
			if m != k {
				v *= (u - float64(m)) / float64(k-m)
			}
		}
		w[k] = v
	}
}

func (f *fftGrad) resize(m int) {
	if f.m == m {
		return
	}
	f.m = m
	f.plan = newFFTPlan(m)
	f.kern = make([]float64, m*m)
	f.a = make([]complex128, m*m/2)
	f.b = make([]complex128, m*m/2)
	f.h = 0
	f.colA = make([][]complex128, f.workers)
	f.colB = make([][]complex128, f.workers)
	f.work = make([][]complex128, f.workers)
	for w := range f.colA {
		f.colA[w] = make([]complex128, m)
		f.colB[w] = make([]complex128, m)
		f.work[w] = make([]complex128, m)
	}
}

func (f *fftGrad) grad(y, g []float64, exag float64, wantKL bool) float64 {
	n := f.n
	forBlocks(n, f.workers, func(blk, lo, hi int) {
		f.klpart[blk] = f.P.attractive(y, f.attr, lo, hi, wantKL)
	})
	Z := f.repulsive(y)
	invZ := 1 / Z
	// Coordinates relative to the grid centre keep the charges small.
	for i := 0; i < n; i++ {
		y0, y1 := y[2*i]-f.c0, y[2*i+1]-f.c1
		ph := f.phi[4*i : 4*i+4]
		r0 := y0*ph[0] - ph[1]
		r1 := y1*ph[0] - ph[2]
		g[2*i] = 4 * (exag*f.attr[2*i] - r0*invZ)
		g[2*i+1] = 4 * (exag*f.attr[2*i+1] - r1*invZ)
	}
	if !wantKL {
		return math.NaN()
	}
	return f.plogp - sumOrdered(f.klpart) + math.Log(Z)
}

// repulsive fills f.phi for every point and returns Z = Σ_{k≠l} w_kl.
// Kept in one function: the interpolation onto the grid, the FFT convolutions
// and the read-back share the grid buffers and index arithmetic of one pass.
func (f *fftGrad) repulsive(y []float64) float64 {
	p := fftInterp
	n := f.n
	min0, max0 := math.Inf(1), math.Inf(-1)
	min1, max1 := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		min0, max0 = min(min0, y[2*i]), max(max0, y[2*i])
		min1, max1 = min(min1, y[2*i+1]), max(max1, y[2*i+1])
	}
	spread := max(max0-min0, max1-min1)
	// Node spacing at most f.spacing, rounded up to a power of 2^(1/8) so that
	// the kernel spectrum is recomputed only when the spacing changes by a
	// ladder step (or the grid grows). The FFT size m is the smallest
	// 2^a·3^b ≥ 2·nodes needed (zero padding for the aperiodic convolution);
	// the grid has m/2 nodes per axis, node j at min + (j+½)h.
	need := max(fftMinNodes, int(math.Ceil(spread/f.spacing)))
	m := fftSizeAtLeast(2 * need)
	f.resize(m)
	nodes := m / 2
	f.nodes = nodes
	h := math.Exp2(math.Ceil(8*math.Log2(max(spread*(1+1e-9)/float64(nodes), 1e-12))) / 8)
	f.c0 = min0 + float64(nodes)*h/2
	f.c1 = min1 + float64(nodes)*h/2
	if h != f.h {
		f.kernelSpectrum(h)
	}

	// Spread the charges onto the p×p nodes nearest each point (a window
	// centred on the point, so it never extrapolates), in point order
	// (deterministic).
	a, b := f.a[:nodes*m], f.b[:nodes*m]
	clear(a)
	clear(b)
	for i := 0; i < n; i++ {
		s0 := (y[2*i]-min0)/h - 0.5
		s1 := (y[2*i+1]-min1)/h - 0.5
		off := 0.5 - float64(p-1)/2
		j0 := min(max(int(math.Floor(s0+off)), 0), nodes-p)
		j1 := min(max(int(math.Floor(s1+off)), 0), nodes-p)
		wx := f.wts[2*p*i : 2*p*i+p]
		wy := f.wts[2*p*i+p : 2*p*i+2*p]
		lagrange(s0-float64(j0), wx)
		lagrange(s1-float64(j1), wy)
		base := j1*m + j0
		f.box[i] = int32(base)
		y0, y1 := y[2*i]-f.c0, y[2*i+1]-f.c1
		qa := complex(1, y0)
		qb := complex(y1, y0*y0+y1*y1)
		for ky := 0; ky < p; ky++ {
			row := base + ky*m
			for kx := 0; kx < p; kx++ {
				w := complex(wy[ky]*wx[kx], 0)
				a[row+kx] += w * qa
				b[row+kx] += w * qb
			}
		}
	}

	// Convolve with the kernel: rows forward, columns forward × spectrum ×
	// inverse, rows inverse. Rows ≥ nodes are zero on input and not needed on
	// output, so they are never stored.
	forRange(nodes, f.workers, func(w, lo, hi int) {
		for r := lo; r < hi; r++ {
			f.plan.transform(a[r*m:(r+1)*m], f.work[w], false)
			f.plan.transform(b[r*m:(r+1)*m], f.work[w], false)
		}
	})
	forRange(m, f.workers, func(w, lo, hi int) {
		ca, cb := f.colA[w], f.colB[w]
		for c := lo; c < hi; c++ {
			for r := 0; r < nodes; r++ {
				ca[r] = a[r*m+c]
				cb[r] = b[r*m+c]
			}
			clear(ca[nodes:])
			clear(cb[nodes:])
			f.plan.transform(ca, f.work[w], false)
			f.plan.transform(cb, f.work[w], false)
			k := f.kern[c*m : (c+1)*m]
			for r := range ca {
				ca[r] *= complex(k[r], 0)
				cb[r] *= complex(k[r], 0)
			}
			f.plan.transform(ca, f.work[w], true)
			f.plan.transform(cb, f.work[w], true)
			for r := 0; r < nodes; r++ {
				a[r*m+c] = ca[r]
				b[r*m+c] = cb[r]
			}
		}
	})
	forRange(nodes, f.workers, func(w, lo, hi int) {
		for r := lo; r < hi; r++ {
			f.plan.transform(a[r*m:(r+1)*m], f.work[w], true)
			f.plan.transform(b[r*m:(r+1)*m], f.work[w], true)
		}
	})

	// Interpolate back and accumulate Z per block.
	norm := 1 / float64(m*m)
	forBlocks(n, f.workers, func(blk, lo, hi int) {
		z := 0.0
		for i := lo; i < hi; i++ {
			wx := f.wts[2*p*i : 2*p*i+p]
			wy := f.wts[2*p*i+p : 2*p*i+2*p]
			base := int(f.box[i])
			var sa, sb complex128
			for ky := 0; ky < p; ky++ {
				row := base + ky*m
				var ra, rb complex128
				for kx := 0; kx < p; kx++ {
					w := complex(wx[kx], 0)
					ra += w * a[row+kx]
					rb += w * b[row+kx]
				}
				sa += complex(wy[ky], 0) * ra
				sb += complex(wy[ky], 0) * rb
			}
			ph := f.phi[4*i : 4*i+4]
			ph[0], ph[1] = real(sa)*norm, imag(sa)*norm
			ph[2], ph[3] = real(sb)*norm, imag(sb)*norm
			y0, y1 := y[2*i]-f.c0, y[2*i+1]-f.c1
			z += (1+y0*y0+y1*y1)*ph[0] - 2*(y0*ph[1]+y1*ph[2]) + ph[3]
		}
		f.zpart[blk] = z
	})
	return sumOrdered(f.zpart) - float64(n)
}

// kernelSpectrum sets f.kern to the 2-D DFT of the circulant embedding of
// K(Δ) = (1 + h²(a² + b²))⁻² for node offsets (a, b), a, b ∈ (−m/2, m/2],
// stored transposed (column-major) for the column pass. The kernel is even in
// both offsets, so its spectrum is real.
func (f *fftGrad) kernelSpectrum(h float64) {
	m := f.m
	f.h = h
	off := func(r int) float64 {
		if r > m/2 {
			r -= m
		}
		return float64(r) * h
	}
	if len(f.kbuf) != m*m {
		f.kbuf = make([]complex128, m*m)
	}
	buf := f.kbuf
	forRange(m, f.workers, func(w, lo, hi int) {
		for r := lo; r < hi; r++ {
			dr := off(r)
			row := buf[r*m : (r+1)*m]
			for c := range row {
				dc := off(c)
				q := 1 + dr*dr + dc*dc
				row[c] = complex(1/(q*q), 0)
			}
			f.plan.transform(row, f.work[w], false)
		}
	})
	forRange(m, f.workers, func(w, lo, hi int) {
		col := f.colA[w]
		for c := lo; c < hi; c++ {
			for r := 0; r < m; r++ {
				col[r] = buf[r*m+c]
			}
			f.plan.transform(col, f.work[w], false)
			for r := 0; r < m; r++ {
				f.kern[c*m+r] = real(col[r])
			}
		}
	})
}
