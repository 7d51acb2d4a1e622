package tsne

import "math"

// fftPlan is a radix-2 complex FFT of a fixed power-of-two length.
type fftPlan struct {
	n   int
	rev []int32
	fw  []complex128 // exp(−2πik/n), k < n/2
	bw  []complex128 // exp(+2πik/n)
}

func newFFTPlan(n int) *fftPlan {
	if n < 2 || n&(n-1) != 0 {
		panic("tsne: FFT length must be a power of two ≥ 2")
	}
	p := &fftPlan{n: n, rev: make([]int32, n), fw: make([]complex128, n/2), bw: make([]complex128, n/2)}
	bits := 0
	for 1<<bits < n {
		bits++
	}
	for i := range p.rev {
		r := 0
		for b := 0; b < bits; b++ {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		p.rev[i] = int32(r)
	}
	for k := range p.fw {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		p.fw[k] = complex(c, -s)
		p.bw[k] = complex(c, s)
	}
	return p
}

// transform computes in place X_k = Σ_j x_j e^{∓2πijk/n} (− for forward,
// + for inverse; unnormalised).
func (p *fftPlan) transform(x []complex128, inverse bool) {
	n := p.n
	x = x[:n]
	for i, r := range p.rev {
		if int(r) > i {
			x[i], x[r] = x[r], x[i]
		}
	}
	tw := p.fw
	if inverse {
		tw = p.bw
	}
	// Stage of size 2: twiddle 1.
	for s := 0; s < n; s += 2 {
		a, b := x[s], x[s+1]
		x[s], x[s+1] = a+b, a-b
	}
	for size := 4; size <= n; size <<= 1 {
		half := size >> 1
		step := n / size
		for s := 0; s < n; s += size {
			lo := x[s : s+half]
			hi := x[s+half : s+size]
			hi = hi[:len(lo)]
			for k := range lo {
				w := tw[k*step]
				b := hi[k]
				t := complex(real(w)*real(b)-imag(w)*imag(b), real(w)*imag(b)+imag(w)*real(b))
				a := lo[k]
				lo[k] = a + t
				hi[k] = a - t
			}
		}
	}
}
