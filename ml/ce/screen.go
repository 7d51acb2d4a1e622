package ce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// The screening pass of the evaluation (eval.ScreeningModel). Ranking a
// document's vocabulary needs CE(τ|δ) of every term τ, but the figures depend
// only on how each term's distance compares with the distances of the
// document's own terms (eval.RanksTo). So the whole vocabulary goes through
// the network once in single precision, sixteen lanes (AVX-512) or eight
// (AVX2 with FMA) at a time and about twice as fast as the exact
// double-precision pass, with a proven bound eps on the error of every
// distance; the document's terms are computed exactly, and
// eval recomputes exactly the few terms whose distance lies within eps of a
// document term's (eval's settle). Every figure is the exact path's.
//
// The bound follows the standard rounding-error analysis of inner products
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1: a
// sum of n products in precision u is within γ_n·Σ|w_j||z_j|, γ_n =
// nu/(1−nu), of the exact one) and tanh being 1-Lipschitz:
//
//	layer 1:  δ_j = 3.01·u·(max_τ |W_1ᵗ·t(τ)|_j + |c_j|) + τ₃₂
//	layer h:  δ_i = Σ_j |W_h|_ij·δ_j + γ_{n+3}·(1.001·Σ_j |W_h|_ij + |b_h,i|) + τ₃₂
//
// where c = W_1ᶜ·l(δ) + b_1, u = 2⁻²⁴, n the layer's input width and τ₃₂ the
// bound of the single-precision tanh (tanh32Err; |z| ≤ 1.001 covers its
// outputs). The CE vector is then within ε = ‖δ‖₂ of the exact one, and by the
// triangle inequality a distance to a query's exact CE (rounded to float32:
// u·√d more) is within ε + u·√d plus the rounding of the distance itself,
// (d+4)·u·2·√d for two points of [−1.001, 1.001]^d. eps is that sum times
// 1.25.

// screenKernels are the single-precision kernels of the screening pass, one
// set per instruction set (screenKernelSets lists the processor's, fastest
// first).
type screenKernels struct {
	name string
	gemm func(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int)
	tanh func(dst, src *float32, ds, ss int, bias *float32, rows, cols int)
	dist func(ce *float32, cs int, q *float32, d int, out *float32, cols int)
}

// screen is the processor's screening kernels, chosen once (the zero value
// without any: no screening).
var screen = func() screenKernels {
	if k := screenKernelSets(); len(k) > 0 {
		return k[0]
	}
	return screenKernels{}
}()

// useScreen reports whether evaluation screens with the single-precision
// kernels; tests switch it off to compare with the exact path.
var useScreen = screen.gemm != nil

// u32 is the unit roundoff of float32.
const u32 = 1.0 / (1 << 24)

// tanh32Err bounds the absolute error of tanhBias32's tanh of a float32 input
// (TestTanh32 measures 1.8e-7 and requires at most half of this).
const tanh32Err = 1e-6

// screenBlock is the number of vocabulary terms screened at once: the
// activations of 256 terms stay in the L2 cache from layer 1 to the distances.
const screenBlock = 256

// screener holds a subnetwork's weights in single precision, zero padded to
// the kernels' tiles (widths to multiples of 8, the vocabulary to a multiple
// of 64), laid out feature-major: a layer's activations for a block of terms
// are its width's rows of screenBlock values.
type screener struct {
	dims []int       // widths of layers 1..H-1 (sizes[1:H])
	pad  []int       // the same, rounded up to multiples of 8
	vpad int         // |Γ| rounded up to a multiple of 64
	preT []float32   // pad[0] × vpad: W_1ᵗ·t(τ) of term τ in column τ
	amax []float64   // dims[0]: max over terms τ of |W_1ᵗ·t(τ)|_j
	w, b [][]float32 // layer l ≥ 1 (network layer l+1): pad[l] × pad[l-1] weights, pad[l] biases
	wabs [][]float64 // layer l ≥ 1: |W| (dims[l] × dims[l-1])
	fix  [][]float64 // layer l ≥ 1: the bound's part that does not depend on the document
	pool sync.Pool   // *screenWork
}

type screenWork struct {
	cp   []float32    // pad[0]: c in float32
	z    [2][]float32 // activations, max(pad) × screenBlock each
	q    []float32    // queries × dims[last]: the queries' exact CE rounded
	out  []float32    // screenBlock distances
	dlt  [2][]float64 // the bound's per-unit errors
	ce   []float64    // exact CE of the named terms
	cpre []float64    // c in float64
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// screener returns the embedder's single-precision copy, built on first use.
func (e *embedder) screener() *screener {
	e.scrOnce.Do(func() { e.scr = newScreener(e) })
	return e.scr
}

func newScreener(e *embedder) *screener {
	H := len(e.sizes) - 1
	s := &screener{dims: e.sizes[1:H], vpad: roundUp(max(e.v, 1), 64)}
	L := len(s.dims)
	s.pad = make([]int, L)
	for l, d := range s.dims {
		s.pad[l] = roundUp(d, 8)
	}
	h1 := s.dims[0]
	s.preT = make([]float32, s.pad[0]*s.vpad)
	s.amax = make([]float64, h1)
	for t := 0; t < e.v; t++ {
		for j, a := range e.termPre[t*h1 : (t+1)*h1] {
			s.preT[j*s.vpad+t] = float32(a)
			s.amax[j] = max(s.amax[j], math.Abs(a))
		}
	}
	s.w, s.b = make([][]float32, L), make([][]float32, L)
	s.wabs, s.fix = make([][]float64, L), make([][]float64, L)
	for l := 1; l < L; l++ {
		h := l + 1 // network layer
		in, out := s.dims[l-1], s.dims[l]
		pin, pout := s.pad[l-1], s.pad[l]
		w := e.params[e.layout.W[h]:e.layout.B[h]]
		b := e.params[e.layout.B[h] : e.layout.B[h]+out]
		s.w[l], s.b[l] = make([]float32, pout*pin), make([]float32, pout)
		s.wabs[l], s.fix[l] = make([]float64, out*in), make([]float64, out)
		g := float64(in+3) * u32 / (1 - float64(in+3)*u32)
		for i := 0; i < out; i++ {
			var l1 float64
			for j := 0; j < in; j++ {
				s.w[l][i*pin+j] = float32(w[i*in+j])
				s.wabs[l][i*in+j] = math.Abs(w[i*in+j])
				l1 += math.Abs(w[i*in+j])
			}
			s.b[l][i] = float32(b[i])
			s.fix[l][i] = g * (1.001*l1 + math.Abs(b[i]))
		}
	}
	return s
}

func (s *screener) work(nq int) *screenWork {
	w, _ := s.pool.Get().(*screenWork)
	if w == nil {
		w = &screenWork{cp: make([]float32, s.pad[0]), out: make([]float32, screenBlock)}
		wide := 0
		for _, p := range s.pad {
			wide = max(wide, p)
		}
		for i := range w.z {
			w.z[i] = make([]float32, wide*screenBlock)
		}
		for i := range w.dlt {
			w.dlt[i] = make([]float64, wide)
		}
		w.cpre = make([]float64, s.dims[0])
	}
	if n := nq * s.dims[len(s.dims)-1]; len(w.q) < n {
		w.q = make([]float32, n)
	}
	return w
}

// bound returns eps for the context part c = W_1ᶜ·l(δ) + b_1 (see above), or
// +Inf or NaN when a weight or c is not finite.
func (s *screener) bound(w *screenWork, c []float64) float64 {
	cur, nxt := w.dlt[0], w.dlt[1]
	delta := cur[:s.dims[0]]
	for j := range delta {
		delta[j] = 3.01*u32*(s.amax[j]+math.Abs(c[j])) + tanh32Err
	}
	for l := 1; l < len(s.dims); l++ {
		in, out := s.dims[l-1], s.dims[l]
		next := nxt[:out]
		for i := range next {
			var p float64
			for j, a := range s.wabs[l][i*in : (i+1)*in] {
				p += a * delta[j]
			}
			next[i] = p + s.fix[l][i] + tanh32Err
		}
		delta = next
		cur, nxt = nxt, cur
	}
	var ss float64
	for _, d := range delta {
		ss += d * d
	}
	d := float64(len(delta))
	return 1.25*(math.Sqrt(ss)+u32*math.Sqrt(d)+(d+4)*u32*2.002*math.Sqrt(d)) + 1e-12
}

// useful reports whether screening with the bound eps can settle anything:
// eps must be finite and below 2·√d, the largest distance between two CE
// vectors of (−1, 1)^d (tanh's range). A larger eps would send every term to
// the exact pass anyway; it is also what a weight, bias or context part
// outside float32's range gives (its rounding term alone is above 10³⁰), so
// the single-precision pass does not run on such a network. The one overflow
// that leaves eps small, a layer-1 unit outside float32's range whose
// outgoing weights are all zero, cannot move a distance: the kernel's tanh
// maps NaN and ±Inf into [−1, 1] (TestTanh32) and a zero weight then
// multiplies a finite value.
func (s *screener) useful(eps float64) bool {
	return eps < 2*math.Sqrt(float64(s.dims[len(s.dims)-1]))
}

// distances writes to dst[i·v+j] the single-precision distance from query i
// (its exact CE in qce, nq × d) to every vocabulary term j, for the context
// part c.
func (s *screener) distances(w *screenWork, dst []float64, v int, c []float64, qce []float64, nq int) {
	for j, x := range c {
		w.cp[j] = float32(x)
	}
	d := s.dims[len(s.dims)-1]
	for i, x := range qce[:nq*d] {
		w.q[i] = float32(x)
	}
	const bs = screenBlock * 4 // a row of a block, in bytes
	for t0 := 0; t0 < s.vpad; t0 += screenBlock {
		n := min(screenBlock, s.vpad-t0)
		screen.tanh(&w.z[0][0], &s.preT[t0], bs, s.vpad*4, &w.cp[0], s.pad[0], n)
		cur := 0
		for l := 1; l < len(s.pad); l++ {
			in, out := s.pad[l-1], s.pad[l]
			zi, zo := w.z[cur], w.z[1-cur]
			for c0 := 0; c0 < n; c0 += 32 {
				for o0 := 0; o0 < out; o0 += 8 {
					screen.gemm(in, &s.w[l][o0*in], in*4, &zi[c0], bs, &zo[o0*screenBlock+c0], bs)
				}
			}
			screen.tanh(&zo[0], &zo[0], bs, bs, &s.b[l][0], out, n)
			cur = 1 - cur
		}
		last := w.z[cur]
		m := min(n, v-t0)
		for i := 0; i < nq; i++ {
			screen.dist(&last[0], bs, &w.q[i*d], d, &w.out[0], n)
			row := dst[i*v+t0 : i*v+t0+m]
			for k := range row {
				row[k] = float64(w.out[k])
			}
		}
	}
}

// ScreenDistances implements eval.ScreeningModel: dst gets every distance
// within eps of Distances' (the screening pass above), exactly Distances'
// values for the terms of exact and of queries, and refine overwrites the
// given terms' columns with Distances' values. ok is false without the
// screening kernels (AVX-512, or AVX2 with FMA) or when the bound could settle
// nothing (useful; dst untouched).
func (x *evalModel) ScreenDistances(ctx, queries, exact []int, _ *rand.Rand, dst []float64) (eps float64, refine func(terms []int), ok bool) {
	if !useScreen || x.e.prod > 0 { // the single-precision copy has no product part
		return 0, nil, false
	}
	e := x.e
	v, d := e.v, e.ceDim()
	if len(dst) != len(queries)*v {
		panic(fmt.Sprintf("ce: ScreenDistances: len(dst) = %d, want %d", len(dst), len(queries)*v))
	}
	s := e.screener()
	c := make([]float64, x.m.ctxDim())
	x.m.contextTo(c, ctx)
	w := s.work(len(queries))
	defer s.pool.Put(w)
	cp := w.cpre
	e.ctxPreTo(cp, c)
	eps = s.bound(w, cp)
	if !s.useful(eps) {
		return 0, nil, false
	}
	// The exact CE of the queries, then of the named terms not among them.
	terms := append([]int(nil), queries...)
	for _, t := range exact {
		if !containsInt(terms, t) {
			terms = append(terms, t)
		}
	}
	ce := make([]float64, len(terms)*d)
	e.embedTerms(ce, terms, c)
	s.distances(w, dst, v, cp, ce, len(queries))
	for i := range queries {
		a := ce[i*d : (i+1)*d]
		for k, t := range terms {
			dst[i*v+t] = euclid(a, ce[k*d:(k+1)*d])
		}
	}
	inv := x.invWidths()
	toWidths(dst, inv) // each column times a factor in (0, 1]: the bound eps still holds
	refine = func(more []int) {
		if len(more) == 0 {
			return
		}
		ce2 := make([]float64, len(more)*d)
		e.embedTerms(ce2, more, c)
		for i := range queries {
			a := ce[i*d : (i+1)*d]
			for k, t := range more {
				dst[i*v+t] = euclid(a, ce2[k*d:(k+1)*d])
				if inv != nil {
					dst[i*v+t] *= inv[t]
				}
			}
		}
	}
	return eps, refine, true
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
