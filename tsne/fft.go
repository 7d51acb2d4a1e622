package tsne

import "math"

// fftPlan is a complex FFT of a fixed length n = 2^a·3^b (a + b ≥ 1), computed
// by the Stockham autosort algorithm (Van Loan 1992, "Computational
// Frameworks for the Fast Fourier Transform", Sec. 1.7): every stage reads one
// buffer and writes the other in natural order, so there is no bit-reversal
// pass. Stages use radix 4 while possible, then radix 2, then radix 3. Sizes
// with factors of 3 let the grid of the FFT gradient grow in steps of 1.5 or
// 4/3 instead of doubling.
type fftPlan struct {
	n      int
	stages []fftStage
}

// fftStage is one pass of the Stockham recursion: sub-transforms of length
// l = r·m, s = n/l of them interleaved with stride s.
type fftStage struct {
	r, m, s int
	fw, bw  []complex128 // twiddles w^{pk}, p < m, 1 ≤ k < r, w = e^{∓2πi/l}; index p·(r−1) + k−1
}

// fftSizeOK reports whether n ≥ 2 is a product of twos and threes.
func fftSizeOK(n int) bool {
	if n < 2 {
		return false
	}
	for n%2 == 0 {
		n /= 2
	}
	for n%3 == 0 {
		n /= 3
	}
	return n == 1
}

// fftSizeAtLeast returns the smallest even 2^a·3^b ≥ max(n, 2).
func fftSizeAtLeast(n int) int {
	best := math.MaxInt
	for p2 := 2; p2 < 2*max(n, 2); p2 *= 2 {
		v := p2
		for v < n {
			v *= 3
		}
		best = min(best, v)
	}
	return best
}

func newFFTPlan(n int) *fftPlan {
	if !fftSizeOK(n) {
		panic("tsne: FFT length must be 2^a·3^b ≥ 2")
	}
	p := &fftPlan{n: n}
	l, s := n, 1
	for l > 1 {
		var r int
		switch {
		case l%4 == 0:
			r = 4
		case l%2 == 0:
			r = 2
		default:
			r = 3
		}
		m := l / r
		st := fftStage{r: r, m: m, s: s, fw: make([]complex128, m*(r-1)), bw: make([]complex128, m*(r-1))}
		for q := 0; q < m; q++ {
			for k := 1; k < r; k++ {
				sn, c := math.Sincos(2 * math.Pi * float64(q*k) / float64(l))
				st.fw[q*(r-1)+k-1] = complex(c, -sn)
				st.bw[q*(r-1)+k-1] = complex(c, sn)
			}
		}
		p.stages = append(p.stages, st)
		l, s = m, s*r
	}
	return p
}

// cmul multiplies two complex numbers without the NaN/Inf handling of the
// built-in product (the operands here are always finite).
func cmul(a, b complex128) complex128 {
	return complex(real(a)*real(b)-imag(a)*imag(b), real(a)*imag(b)+imag(a)*real(b))
}

// mulI returns i·a, or −i·a when neg.
func mulI(a complex128, neg bool) complex128 {
	if neg {
		return complex(imag(a), -real(a))
	}
	return complex(-imag(a), real(a))
}

// transform computes in place X_k = Σ_j x_j e^{∓2πijk/n} (− for forward,
// + for inverse; unnormalised). work is scratch of length ≥ n.
func (p *fftPlan) transform(x, work []complex128, inverse bool) {
	n := p.n
	x, work = x[:n], work[:n]
	src, dst := x, work
	const sin60 = 0.86602540378443864676 // √3/2
	for si := range p.stages {
		st := &p.stages[si]
		r, m, s := st.r, st.m, st.s
		tw := st.fw
		if inverse {
			tw = st.bw
		}
		switch r {
		case 4:
			// b_k = Σ_j a_j (∓i)^{jk}, then b_k·w^{pk}.
			for q := 0; q < m; q++ {
				w1, w2, w3 := tw[3*q], tw[3*q+1], tw[3*q+2]
				i0, i1, i2, i3 := s*q, s*(q+m), s*(q+2*m), s*(q+3*m)
				o := s * 4 * q
				a0, a1, a2, a3 := src[i0:i0+s], src[i1:i1+s], src[i2:i2+s], src[i3:i3+s]
				d0, d1, d2, d3 := dst[o:o+s], dst[o+s:o+2*s], dst[o+2*s:o+3*s], dst[o+3*s:o+4*s]
				for j := range a0 {
					t0, t1 := a0[j]+a2[j], a0[j]-a2[j]
					t2, t3 := a1[j]+a3[j], mulI(a1[j]-a3[j], !inverse)
					d0[j] = t0 + t2
					d1[j] = cmul(t1+t3, w1)
					d2[j] = cmul(t0-t2, w2)
					d3[j] = cmul(t1-t3, w3)
				}
			}
		case 2:
			for q := 0; q < m; q++ {
				w := tw[q]
				i0, i1 := s*q, s*(q+m)
				o := s * 2 * q
				a0, a1 := src[i0:i0+s], src[i1:i1+s]
				d0, d1 := dst[o:o+s], dst[o+s:o+2*s]
				for j := range a0 {
					d0[j] = a0[j] + a1[j]
					d1[j] = cmul(a0[j]-a1[j], w)
				}
			}
		case 3:
			// b_1,2 = a_0 − (a_1+a_2)/2 ∓ i·(√3/2)(a_1−a_2) (forward sign).
			for q := 0; q < m; q++ {
				w1, w2 := tw[2*q], tw[2*q+1]
				i0, i1, i2 := s*q, s*(q+m), s*(q+2*m)
				o := s * 3 * q
				a0, a1, a2 := src[i0:i0+s], src[i1:i1+s], src[i2:i2+s]
				d0, d1, d2 := dst[o:o+s], dst[o+s:o+2*s], dst[o+2*s:o+3*s]
				for j := range a0 {
					t := a1[j] + a2[j]
					u := mulI((a1[j]-a2[j])*complex(sin60, 0), !inverse)
					c := a0[j] - t*complex(0.5, 0)
					d0[j] = a0[j] + t
					d1[j] = cmul(c+u, w1)
					d2[j] = cmul(c-u, w2)
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &x[0] {
		copy(x, src)
	}
}
