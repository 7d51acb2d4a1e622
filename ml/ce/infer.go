package ce

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/nn"
)

// embedder computes concept embeddings CE(τ|δ) = z_{H-1}(x(τ,δ)) (§4.2) with a
// trained subnetwork, batched over all vocabulary terms of one context.
//
// The first layer is affine in x = (t(τ), l(δ)):
//
//	W_1·x + b_1 = W_1ᵗ·t(τ) + (W_1ᶜ·l(δ) + b_1),
//
// where W_1ᵗ are the columns of W_1 that read the term part and W_1ᶜ those that
// read the context part. termPre[τ] = W_1ᵗ·t(τ) is computed once per model for
// every vocabulary term, and W_1ᶜ·l(δ) + b_1 once per document, so a document
// costs |Γ| additions in layer 1 and one matrix product per further layer up to
// the CE layer; the output layer is never evaluated at inference.
//
// With ContextLDAMeanProduct x has a third part, p = t(τ)_{1..P} ⊙ m(δ) (m the
// document's mean term row), read by the last P columns W_1ᵖ: a term's layer-1
// input is then termPre[τ] + W_1ᵖ·p, which depends on the document, computed
// per document at P·sizes[1] more operations a term (prodPre).
type embedder struct {
	sizes    []int // input, hidden..., output
	layout   nn.Layout
	params   []float64
	dt, dc   int         // widths of the term part and the context part of x
	prod     int         // width of the product part (ContextLDAMeanProduct), else 0
	termX    [][]float64 // the scaled term inputs, for the product part
	v        int         // |Γ|
	termPre  []float64   // v × sizes[1], row-major
	termTh   []float64   // tanh of termPre
	tail     *nn.MLP     // layers 2..H-1 (sizes[1] → … → CE), sharing params; nil when H-1 = 1
	packed   *nn.Packed  // tail's weights packed once for nn's GEMM kernels
	pool     sync.Pool   // *embedWork
	vocab    sync.Pool   // *[]float64 of |Γ| × ceDim (vocabScratch)
	scr      *screener   // single-precision copy for evaluation (screen.go), built once
	scrOnce  sync.Once
	invWidth []float64 // 1/σ_j of every term (width.go), nil without term widths
}

// embedWork is the per-call workspace of an embedder (one per goroutine).
type embedWork struct {
	ctxPre []float64
	ctxTh  []float64 // tanh of ctxPre
	a      []float64 // rows × sizes[1]: z_1
	fixAt  []int32   // entries of a taken directly (embedPre), listed by tanhSumAVX2
	fixX   []float64 // their arguments, then their tanh
	ws     *nn.Workspace
}

// newEmbedder precomputes the term part of the first layer for the scaled term
// inputs termX (|Γ| × dt). params is the flat parameter vector in nn's layout.
func newEmbedder(sizes []int, params []float64, termX [][]float64, dc, prod int) *embedder {
	if len(sizes) < 3 {
		panic("ce: a subnetwork needs at least one hidden layer")
	}
	l := nn.NewLayout(sizes)
	if len(params) != l.N {
		panic(fmt.Sprintf("ce: %d parameters, layout needs %d", len(params), l.N))
	}
	dt := 0
	if len(termX) > 0 {
		dt = len(termX[0])
	}
	if dt+dc+prod != sizes[0] || prod > dc || prod > dt {
		panic(fmt.Sprintf("ce: input width %d+%d+%d, network expects %d", dt, dc, prod, sizes[0]))
	}
	e := &embedder{sizes: sizes, layout: l, params: params, dt: dt, dc: dc, prod: prod, termX: termX, v: len(termX)}
	if H := len(sizes) - 1; H > 2 {
		// Layers 2..H-1 are stored contiguously in nn's layout (W_h then b_h),
		// exactly as the flat parameters of an MLP with sizes[1..H-1].
		e.tail = &nn.MLP{Sizes: sizes[1:H], Params: params[l.W[2] : l.B[H-1]+sizes[H-1]]}
		e.packed = e.tail.Pack()
	}
	h1 := sizes[1]
	e.termPre = make([]float64, e.v*h1)
	e.termTh = make([]float64, e.v*h1)
	// Every term's row alone: two halves in parallel give the same values (a
	// model is snapshotted at every validation, so this is on training's path).
	rows := func(lo, hi int) {
		for t := lo; t < hi; t++ {
			e.termPreTo(e.termPre[t*h1:(t+1)*h1], termX[t])
			nn.TanhTo(e.termTh[t*h1:(t+1)*h1], e.termPre[t*h1:(t+1)*h1])
		}
	}
	inHalves(e.v, rows)
	return e
}

// inHalves calls f(0, n/2) and f(n/2, n) concurrently and waits: for loops
// whose iterations are independent of each other, which give the same values
// however they are split.
func inHalves(n int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(0, n/2)
	}()
	f(n/2, n)
	wg.Wait()
}

// ceDim returns the dimension of the CE layer.
func (e *embedder) ceDim() int { return e.sizes[len(e.sizes)-2] }

// termPreTo fills dst (sizes[1]) with W_1ᵗ·x for a scaled term input x (dt).
func (e *embedder) termPreTo(dst, x []float64) {
	w := e.params[e.layout.W[1]:e.layout.B[1]]
	in := e.sizes[0]
	for j := range dst {
		row := w[j*in : j*in+e.dt]
		var s float64
		for i, xi := range x {
			s += row[i] * xi
		}
		dst[j] = s
	}
}

// ctxPreTo fills dst (sizes[1]) with W_1ᶜ·c + b_1 for a scaled context input c (dc).
func (e *embedder) ctxPreTo(dst, c []float64) {
	w := e.params[e.layout.W[1]:e.layout.B[1]]
	b := e.params[e.layout.B[1] : e.layout.B[1]+e.sizes[1]]
	in := e.sizes[0]
	for j := range dst {
		row := w[j*in+e.dt : j*in+e.dt+e.dc]
		s := b[j]
		for i, ci := range c {
			s += row[i] * ci
		}
		dst[j] = s
	}
}

func (e *embedder) work(rows int) *embedWork {
	w, _ := e.pool.Get().(*embedWork)
	if w == nil {
		w = &embedWork{}
		if e.tail != nil {
			w.ws = nn.NewWorkspace(e.tail.Sizes, rows)
			w.ws.UsePacked(e.packed)
		}
	}
	if len(w.ctxPre) < e.sizes[1] {
		w.ctxPre = make([]float64, e.sizes[1])
		w.ctxTh = make([]float64, e.sizes[1])
	}
	if n := rows * e.sizes[1]; len(w.a) < n {
		w.a = make([]float64, n)
	}
	return w
}

// embedPre computes CE for rows whose first-layer pre-activations minus the
// context part are given: row r of pre1 (rows × sizes[1]) holds a = W_1ᵗ·t(τ_r)
// and row r of th1 holds tanh(a). It writes the CE vectors (rows × ceDim) to
// dst. ctx is the scaled context input.
//
// Layer 1 is z_1 = tanh(a + c) with c = W_1ᶜ·l(δ) + b_1, computed by the
// addition theorem tanh(a + c) = (tanh a + tanh c)/(1 + tanh a · tanh c) from
// the precomputed tanh a and one tanh c per document: no exponential per
// (term, document) pair. Where the denominator is small (a and c both large
// with opposite signs, where the formula would cancel), tanh(a + c) is taken
// directly. Layers 2..H-1 run as one batch through nn.MLP.ForwardInto (nn's
// GEMM kernels), the CE layer written straight into dst.
func (e *embedder) embedPre(dst, pre1, th1 []float64, rows int, ctx []float64) {
	w := e.work(min(rows, embedBlock))
	defer e.pool.Put(w)
	h1 := e.sizes[1]
	cp := w.ctxPre[:h1]
	e.ctxPreTo(cp, ctx)
	ct := w.ctxTh[:h1]
	nn.TanhTo(ct, cp)
	d := e.ceDim()
	// Blocks of embedBlock rows, so that a block's activations stay in cache from
	// layer 1 to the CE layer; every row is computed alone (the GEMM kernels'
	// sums run over the inner dimension only), so the blocks change no value.
	for b0 := 0; b0 < rows; b0 += embedBlock {
		b1 := min(b0+embedBlock, rows)
		n := b1 - b0
		a := w.a[:n*h1]
		pre, th := pre1[b0*h1:b1*h1], th1[b0*h1:b1*h1]
		if useTanhSum && h1%4 == 0 {
			// The division for every entry in the kernel, which lists the
			// entries whose denominator is small (same test, same operations)
			// with their arguments pre + cp. Those entries' tanh by
			// nn.TanhTo, math.Tanh's bits four lanes at a time.
			if len(w.fixAt) < n*h1 {
				w.fixAt, w.fixX = make([]int32, n*h1), make([]float64, n*h1)
			}
			small := tanhSumAVX2(&a[0], &th[0], &ct[0], &pre[0], &cp[0], &w.fixAt[0], &w.fixX[0], n, h1)
			fixX := w.fixX[:small]
			nn.TanhTo(fixX, fixX)
			for i, at := range w.fixAt[:small] {
				a[at] = fixX[i]
			}
		} else {
			tanhSumGo(a, pre, th, ct, cp, n, h1)
		}
		if e.tail == nil {
			copy(dst[b0*h1:b1*h1], a)
			continue
		}
		e.tail.ForwardInto(w.ws, mat.NewDense(n, h1, a), e.tail.Layers(), dst[b0*d:b1*d])
	}
}

// embedBlock is the number of rows embedPre takes through the network at once:
// 256 rows of 100 activations are 200 kB.
const embedBlock = 256

// tanhSumGo is the Go loop of embedPre's layer 1: a[r,j] = tanh(pre1[r,j] + cp[j])
// by the addition theorem from th1[r,j] = tanh(pre1[r,j]) and ct[j] = tanh(cp[j]),
// or directly where 1 + th1·ct < 0.5.
func tanhSumGo(a, pre1, th1, ct, cp []float64, rows, h1 int) {
	for r := 0; r < rows; r++ {
		src := pre1[r*h1 : (r+1)*h1]
		th := th1[r*h1 : (r+1)*h1]
		row := a[r*h1 : (r+1)*h1]
		for j, ta := range th {
			tc := ct[j]
			den := 1 + float64(ta*tc) // never fused: tanhSumAVX2's bits
			if den < 0.5 {
				row[j] = math.Tanh(src[j] + cp[j])
			} else {
				row[j] = (ta + tc) / den
			}
		}
	}
}

// vocabScratch returns a |Γ| × ceDim buffer for embedVocab from the embedder's
// pool (a whole vocabulary's embeddings per document are megabytes: allocating
// them per call costs clearing and garbage collection). Return it with
// e.vocab.Put.
func (e *embedder) vocabScratch() *[]float64 {
	if b, ok := e.vocab.Get().(*[]float64); ok {
		return b
	}
	b := make([]float64, e.v*e.ceDim())
	return &b
}

// embedVocab writes CE(τ|δ) for every vocabulary term τ (|Γ| × ceDim) to dst, for
// the scaled context input ctx of document δ.
func (e *embedder) embedVocab(dst []float64, ctx []float64) {
	if e.prod > 0 {
		pre, th := e.prodPre(e.termPre, e.termX, ctx)
		e.embedPre(dst, pre, th, e.v, ctx)
		return
	}
	e.embedPre(dst, e.termPre, e.termTh, e.v, ctx)
}

// prodPre returns layer 1's inputs without the context part for the term
// inputs xs in context ctx with the product part: row r is pre's row r
// (W_1ᵗ·xs[r], sizes[1] wide) plus W_1ᵖ·(xs[r]_{1..P} ⊙ m), m the last P
// entries of ctx; and their tanh.
func (e *embedder) prodPre(pre []float64, xs [][]float64, ctx []float64) (out, th []float64) {
	h1, in := e.sizes[1], e.sizes[0]
	w := e.params[e.layout.W[1]:e.layout.B[1]]
	mean := ctx[e.dc-e.prod:]
	out = make([]float64, len(xs)*h1)
	th = make([]float64, len(xs)*h1)
	p := make([]float64, e.prod)
	for r, x := range xs {
		for i, m := range mean {
			p[i] = x[i] * m
		}
		row := out[r*h1 : (r+1)*h1]
		for j := range row {
			wp := w[j*in+e.dt+e.dc : (j+1)*in]
			s := pre[r*h1+j]
			for i, pi := range p {
				s += wp[i] * pi
			}
			row[j] = s
		}
	}
	nn.TanhTo(th, out)
	return out, th
}

// embedTerms writes CE(τ|δ) of the given vocabulary terms (len(terms) × ceDim).
func (e *embedder) embedTerms(dst []float64, terms []int, ctx []float64) {
	h1 := e.sizes[1]
	pre := make([]float64, len(terms)*h1)
	th := make([]float64, len(terms)*h1)
	for i, t := range terms {
		copy(pre[i*h1:(i+1)*h1], e.termPre[t*h1:(t+1)*h1])
		copy(th[i*h1:(i+1)*h1], e.termTh[t*h1:(t+1)*h1])
	}
	if e.prod > 0 {
		xs := make([][]float64, len(terms))
		for i, t := range terms {
			xs[i] = e.termX[t]
		}
		pre, th = e.prodPre(pre, xs, ctx)
	}
	e.embedPre(dst, pre, th, len(terms), ctx)
}

// embedInput writes CE of an arbitrary scaled term input x (dt) in context ctx
// (feature-based OOV embedding, §4.4) to dst (ceDim).
func (e *embedder) embedInput(dst []float64, x []float64, ctx []float64) {
	pre := make([]float64, e.sizes[1])
	e.termPreTo(pre, x)
	th := make([]float64, len(pre))
	if e.prod > 0 {
		pre, th = e.prodPre(pre, [][]float64{x}, ctx)
	} else {
		nn.TanhTo(th, pre)
	}
	e.embedPre(dst, pre, th, 1, ctx)
}

// euclid returns ‖a − b‖₂, the distance e(τ,τ_i|δ) in CE space (§4.3.3).
func euclid(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += float64(d * d) // rounded before the sum, never fused: euclidGroup's bits
	}
	return math.Sqrt(s)
}
