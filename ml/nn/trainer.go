package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Trainer computes the mini-batch gradients of stage 1 (Eq. 5) and stage 2 (Eq. 7)
// for a network. The batch is cut into Parts contiguous parts of (nearly) equal size
// that are processed concurrently, each with its own workspace and gradient buffer;
// the part gradients are then summed in part order. The gradient of the first layer
// (for networks with a hidden layer) is instead formed once over the whole batch from
// the parts' back-propagated δ_1, the parts splitting its columns (finish). The
// result therefore depends only on the inputs and Parts (not on scheduling): same
// inputs, same bytes.
// A Trainer is not safe for concurrent use.
type Trainer struct {
	// Net is the network whose parameters are differentiated. It may be replaced
	// between calls by a network of the same sizes.
	Net *MLP

	parts  []*trainPart
	packed [][]float64 // W_h packed by packNT for the current call, shared by the parts
	view   [][]float64 // packed without the output layer (sampled calls)

	// sparseBase and sparseRows remember the gradient vector of the last sampled
	// call and the rows of W_H it wrote (finish).
	sparseBase *float64
	sparseRows []int
	d1         [2][]float64 // δ_1 of the whole batch for each member (rows of all parts)
	cw         colWeights   // the sampled output rows of the current call (run)
	team       team         // runs the parts (parallel)
}

type trainPart struct {
	ws1, ws2 *Workspace
	grad     []float64
	gOut1    []float64 // ∂L/∂ŷ of member 1
	gOut2    []float64
	gCE1     []float64 // α ∂L_S/∂CE of member 1
	gCE2     []float64
	lp, ls   float64
	st       lossScratch
}

// DefaultParts is the number of parts a Trainer splits a batch into: one per core of
// the 2-core target machine. It is a constant, not runtime.NumCPU, so that results do
// not depend on the machine.
const DefaultParts = 2

// NewTrainer returns a Trainer for m and batches of up to maxBatch rows (larger
// batches make it grow), splitting each batch into DefaultParts parts.
func NewTrainer(m *MLP, maxBatch int) *Trainer {
	return NewTrainerParts(m, maxBatch, DefaultParts)
}

// NewTrainerParts is NewTrainer with an explicit number of parts (≥ 1).
func NewTrainerParts(m *MLP, maxBatch, parts int) *Trainer {
	if parts < 1 {
		panic("nn: a Trainer needs at least one part")
	}
	m.check()
	t := &Trainer{Net: m}
	per := (max(maxBatch, 1) + parts - 1) / parts
	for range parts {
		t.parts = append(t.parts, &trainPart{
			ws1:  NewWorkspace(m.Sizes, per),
			ws2:  NewWorkspace(m.Sizes, per),
			grad: make([]float64, len(m.Params)),
		})
	}
	return t
}

// split returns the row range of part p of n rows.
func (t *Trainer) split(n, p int) (int, int) {
	P := len(t.parts)
	return p * n / P, (p + 1) * n / P
}

// run calls f for every non-empty part concurrently and waits. The weights of the
// network are packed once for all parts' forward passes; with a column sample s,
// the output layer is not packed whole: its rows s.Cols are gathered and packed
// once (packCols) for every forward pass of the call.
func (t *Trainer) run(n int, s *ColumnSample, f func(p *trainPart, lo, hi int)) {
	if s != nil {
		m := t.Net
		nc, k := len(s.Cols), m.Sizes[m.Layers()-1]
		t.cw.w, t.cw.b = grow(t.cw.w, nc*k), grow(t.cw.b, nc)
		P := len(t.parts)
		t.sharePacked(true, func(i int) { t.cw.gather(m, s.Cols, i, P) })
		t.packCols()
	} else {
		t.sharePacked(false, nil)
	}
	defer func() {
		for _, p := range t.parts {
			p.ws1.pre, p.ws2.pre = nil, nil
		}
	}()
	t.parallel(func(i int, p *trainPart) {
		lo, hi := t.split(n, i)
		if lo == hi {
			clear(p.grad)
			p.lp, p.ls = 0, 0
			return
		}
		f(p, lo, hi)
	})
}

// sharePacked packs W_h of the current parameters for the assembly kernels and
// hands them to every part's workspaces; the parts pack disjoint blocks
// concurrently, part i then calling also(i) when also is not nil (in the same
// parallel region: one wake-up less per step). With skipOut the output layer is
// left unpacked (its entry is nil for the workspaces).
func (t *Trainer) sharePacked(skipOut bool, also func(i int)) {
	m := t.Net
	H := m.Layers()
	if !useAsm {
		if also != nil {
			t.parallel(func(i int, _ *trainPart) { also(i) })
		}
		return
	}
	l := m.Layout()
	if len(t.packed) != H+1 {
		t.packed = make([][]float64, H+1)
	}
	top := H
	if skipOut {
		top = H - 1
	}
	for h := 1; h <= top; h++ {
		t.packed[h] = grow(t.packed[h], packNTLen(m.Sizes[h], m.Sizes[h-1]))
	}
	P := len(t.parts)
	t.parallel(func(i int, _ *trainPart) {
		base := 0 // blocks of the layers before h, for a round-robin over all blocks
		for h := 1; h <= top; h++ {
			base += packNTSegments(t.packed[h], m.Params[l.W[h]:l.B[h]], m.Sizes[h], m.Sizes[h-1],
				func(s int) bool { return (base+s)%P == i })
		}
		if also != nil {
			also(i)
		}
	})
	pre := t.packed
	if skipOut {
		t.view = append(t.view[:0], t.packed[:H]...)
		pre = append(t.view, nil)
	}
	for _, p := range t.parts {
		p.ws1.pre, p.ws2.pre = pre, pre
	}
}

// packCols packs the output rows gathered into t.cw (the sample's columns, see
// run) for the GEMM kernels, the parts sharing the work; the forward passes of
// the call read them (forwardOut), so each row is copied and packed once per
// call rather than once per part and member.
func (t *Trainer) packCols() {
	m := t.Net
	nc, k := len(t.cw.b), m.Sizes[m.Layers()-1]
	if !useAsm || nc == 0 {
		t.cw.packed = nil
		return
	}
	t.cw.packed = grow(t.cw.packed, packNTLen(nc, k))
	P := len(t.parts)
	t.parallel(func(i int, _ *trainPart) {
		packNTSegments(t.cw.packed, t.cw.w, nc, k, func(s int) bool { return s%P == i })
	})
}

// parallel calls f(i, parts[i]) for every part concurrently (the last one on the
// calling goroutine) and waits.
func (t *Trainer) parallel(f func(i int, p *trainPart)) {
	t.team.run(len(t.parts), func(i int) { f(i, t.parts[i]) })
}

// reduce writes Σ_p parts[p].grad (summed in part order) into grad; the parts sum
// disjoint ranges of the vector concurrently, which does not change any sum.
func (t *Trainer) reduce(grad []float64) {
	if len(grad) != len(t.Net.Params) {
		panic(fmt.Sprintf("nn: gradient vector has length %d, want %d", len(grad), len(t.Net.Params)))
	}
	t.parallel(func(i int, _ *trainPart) {
		lo, hi := t.split(len(grad), i)
		g := grad[lo:hi]
		copy(g, t.parts[0].grad[lo:hi])
		for _, p := range t.parts[1:] {
			axpyUnitary(1, p.grad[lo:hi], g)
		}
	})
}

// splitLayer1 reports whether the layer-1 gradient is formed over the whole batch
// (finish) rather than per part: when layer 1 is a hidden layer.
func (t *Trainer) splitLayer1() bool { return t.Net.Layers() >= 2 }

// d1Rows returns the rows lo..hi of the shared δ_1 buffer of member mi, or nil when
// the layer-1 gradient is formed per part.
func (t *Trainer) d1Rows(mi, lo, hi int) []float64 {
	if !t.splitLayer1() {
		return nil
	}
	n1 := t.Net.Sizes[1]
	return t.d1[mi][lo*n1 : hi*n1]
}

// finish writes the batch gradient into grad after the parts are done. Layer 1, the
// widest with a large input, is formed over the whole batch from the shared δ_1 of
// every member m with input X^m (Eq. A.4 summed over the members):
//
//	∂L/∂W_1 = Σ_m (δ_1^m)ᵀ X^m,   ∂L/∂b_1 = Σ_m 1ᵀ δ_1^m,
//
// part i computing a fixed range of input columns and bias entries, so that nothing
// of layer 1 needs reducing. The other layers are Σ_p parts[p].grad summed in part
// order, over disjoint ranges in parallel. Every sum has a fixed order: same inputs,
// same bytes.
//
// With a column sample (cols not nil: the sampled Eq. 5), only the rows cols of
// W_H can have a gradient; the parts wrote only those rows (MLP.backward), so only
// those are summed, and the rows of grad the previous sampled call wrote into the
// same grad are set to zero: grad ends exactly as the dense sum would leave it
// (0 + 0 = 0 elsewhere) without touching the |Γ| − |cols| idle rows.
func (t *Trainer) finish(grad []float64, cols []int, xs ...*mat.Dense) {
	if !t.splitLayer1() {
		t.reduce(grad)
		return
	}
	m := t.Net
	l := m.Layout()
	if len(grad) != l.N {
		panic(fmt.Sprintf("nn: gradient vector has length %d, want %d", len(grad), l.N))
	}
	H := m.Layers()
	wH, bH, k := l.W[H], l.B[H], m.Sizes[H-1]
	// Rows of W_H the previous sampled call wrote into this grad (to be
	// zeroed), or nil when all of W_H is to be zeroed.
	var prev []int
	reuse := cols != nil && t.sparseBase == &grad[0]
	if reuse {
		prev = t.sparseRows
	}
	sum := func(lo, hi int) {
		g := grad[lo:hi]
		copy(g, t.parts[0].grad[lo:hi])
		for _, q := range t.parts[1:] {
			axpyUnitary(1, q.grad[lo:hi], g)
		}
	}
	n0, n1 := m.Sizes[0], m.Sizes[1]
	t.parallel(func(i int, p *trainPart) {
		lo, hi := t.split(l.N-l.W[2], i)
		lo, hi = lo+l.W[2], hi+l.W[2]
		if cols == nil {
			sum(lo, hi)
		} else {
			if a, b := lo, min(hi, wH); a < b {
				sum(a, b)
			}
			if a, b := max(lo, bH), hi; a < b {
				sum(a, b)
			}
			// W_H: this part zeroes and sums the elements of its own range
			// [lo, hi) only, so that no element is touched by two parts and
			// the zeroing of an element precedes its sum.
			if a, b := max(lo, wH), min(hi, bH); a < b {
				if reuse {
					for _, j := range prev {
						if c, d := max(a, wH+j*k), min(b, wH+(j+1)*k); c < d {
							clear(grad[c:d])
						}
					}
				} else {
					clear(grad[a:b])
				}
				for _, j := range cols {
					if c, d := max(a, wH+j*k), min(b, wH+(j+1)*k); c < d {
						sum(c, d)
					}
				}
			}
		}
		if c0, c1 := t.split(n0, i); c1 > c0 {
			for mi, x := range xs {
				raw := x.RawMatrix()
				gemmTN(n1, c1-c0, raw.Rows, t.d1[mi], n1, raw.Data[c0:], raw.Stride, grad[l.W[1]+c0:], n0, mi > 0, &p.ws1.pack)
			}
		}
		b0, b1 := t.split(n1, i)
		db := grad[l.B[1]+b0 : l.B[1]+b1]
		clear(db)
		for mi, x := range xs {
			d := t.d1[mi]
			for r := 0; r < x.RawMatrix().Rows; r++ {
				for j, v := range d[r*n1+b0 : r*n1+b1] {
					db[j] += v
				}
			}
		}
	})
	if cols != nil {
		t.sparseBase, t.sparseRows = &grad[0], append(t.sparseRows[:0], cols...)
	} else {
		t.sparseBase = nil
	}
}

func rowsOf(x *mat.Dense, lo, hi int) *mat.Dense {
	_, c := x.Dims()
	return x.Slice(lo, hi, 0, c).(*mat.Dense)
}

func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// PredictionGrad computes the stage-1 loss L_P of Eq. 5 over the batch (rows of x,
// targets[k] the target of row k, normalised by the whole batch size K) and writes
// ∂L_P/∂θ into grad (overwritten, layout of Net.Params). It returns L_P.
func (t *Trainer) PredictionGrad(x *mat.Dense, targets []Target, grad []float64) float64 {
	return t.predictionGrad(x, targets, nil, grad)
}

// SampledPredictionGrad is PredictionGrad with the sampled estimate of Eq. 5
// (SampledPredictionLoss) on the output units of s (drawn by the caller with
// s.Draw(targets, |Γ|, M, rng)): the output layer is computed and differentiated for
// s.Cols only (MLP.ForwardCols).
//
// Successive sampled calls with the same grad vector reset only the rows of W_H
// that the previous call wrote (finish): the caller must not change grad between
// calls, or must pass another vector. SampledSiameseGrad likewise.
func (t *Trainer) SampledPredictionGrad(x *mat.Dense, targets []Target, s *ColumnSample, grad []float64) float64 {
	return t.predictionGrad(x, targets, s, grad)
}

// forwardOut runs the network to the output layer, restricted to s.Cols when s is
// not nil, and returns the output width.
func forwardOut(m *MLP, ws *Workspace, x *mat.Dense, s *ColumnSample, cw *colWeights) int {
	H := m.Layers()
	if s == nil {
		m.ForwardTo(ws, x, H)
		return m.Sizes[H]
	}
	if s.NOut != m.Sizes[H] {
		panic(fmt.Sprintf("nn: column sample over %d units for %d outputs", s.NOut, m.Sizes[H]))
	}
	m.forwardCols(ws, x, s.Cols, cw)
	return len(s.Cols)
}

// forwardLoss runs m on x to the output layer and forms the exact Eq. 5 loss of the
// rows (normalised by total) with δ_H written into g (predictionLossFold). The output
// layer, the widest matrix of a large vocabulary, is computed, squashed and scored in
// blocks of rows, so that each block of ŷ is still in cache for its tanh and loss.
// The loss is summed block after block.
func forwardLoss(m *MLP, ws *Workspace, x *mat.Dense, targets []Target, g *mat.Dense, total int) float64 {
	H := m.Layers()
	if H < 2 {
		m.ForwardTo(ws, x, H)
		return predictionLossFold(ws.Out(H), targets, g, total, true)
	}
	m.forwardHidden(ws, x, H-1, nil)
	ws.cols = nil
	ws.upTo = H
	l := m.Layout()
	r, n, k := ws.batch, m.Sizes[H], m.Sizes[H-1]
	W, b := m.Params[l.W[H]:l.B[H]], m.Params[l.B[H]:l.B[H]+n]
	out, in, gd := ws.z[H], ws.z[H-1], g.RawMatrix().Data
	const blk = 8 // rows per block: one register tile of the AVX-512 kernel
	var loss float64
	for r0 := 0; r0 < r; r0 += blk {
		r1 := min(r0+blk, r)
		ws.layerProduct(r1-r0, n, k, in[r0*k:], k, W, H, out[r0*n:])
		biasTanh(out[r0*n:r1*n], n, b)
		yv := mat.NewDense(r1-r0, n, out[r0*n:r1*n])
		gv := mat.NewDense(r1-r0, n, gd[r0*n:r1*n])
		loss += predictionLossFold(yv, targets[r0:r1], gv, total, true)
	}
	return loss
}

// lossOut computes the (exact or sampled) Eq. 5 loss of a part and its gradient
// into g: δ_H = ∂L/∂a_H for the exact loss (predictionLossFold), ∂L/∂ŷ for the
// sampled one; it reports which.
func lossOut(yhat *mat.Dense, s *ColumnSample, targets []Target, g *mat.Dense, total int, st *lossScratch) (loss float64, delta bool) {
	if s == nil {
		return predictionLossFold(yhat, targets, g, total, true), true
	}
	return sampledPredictionLoss(yhat, s, targets, g, total, st), false
}

func (t *Trainer) predictionGrad(x *mat.Dense, targets []Target, s *ColumnSample, grad []float64) float64 {
	K, _ := x.Dims()
	if len(targets) != K {
		panic(fmt.Sprintf("nn: %d targets for %d rows", len(targets), K))
	}
	m := t.Net
	H := m.Layers()
	t.d1[0] = grow(t.d1[0], K*m.Sizes[1])
	t.run(K, s, func(p *trainPart, lo, hi int) {
		n := hi - lo
		var g *mat.Dense
		var delta bool
		if s == nil {
			G := m.Sizes[H]
			p.gOut1 = grow(p.gOut1, n*G)
			g = mat.NewDense(n, G, p.gOut1)
			p.lp, delta = forwardLoss(m, p.ws1, rowsOf(x, lo, hi), targets[lo:hi], g, K), true
		} else {
			G := forwardOut(m, p.ws1, rowsOf(x, lo, hi), s, &t.cw)
			p.gOut1 = grow(p.gOut1, n*G)
			g = mat.NewDense(n, G, p.gOut1)
			p.lp, delta = lossOut(p.ws1.Out(H), s, targets[lo:hi], g, K, &p.st)
		}
		grads := make([]*mat.Dense, H+1)
		grads[H] = g
		m.backward(p.ws1, grads, p.grad, true, delta, t.d1Rows(0, lo, hi))
	})
	var cols []int
	if s != nil {
		cols = s.Cols
	}
	t.finish(grad, cols, x)
	var lp float64
	for _, p := range t.parts {
		lp += p.lp
	}
	return lp
}

// SiameseGrad computes the stage-2 loss of Eq. 7 on a batch of N pairs,
//
//	L = L_P(X¹, Y¹) + L_P(X², Y²) + α L_S(X¹, X²),
//
// where row n of x1 and x2 are the pair's members with targets t1[n], t2[n], types[n]
// their situation and d[n] their context similarity D (ContextSimilarity); L_P is
// PredictionLoss over the N members of each side and L_S is SiameseLoss. It writes
// ∂L/∂θ (the sum of both members' paths through the tied weights) into grad and
// returns L_P(X¹)+L_P(X²) and L_S.
func (t *Trainer) SiameseGrad(x1, x2 *mat.Dense, t1, t2 []Target, types []PairType, d []float64, cfg SiameseConfig, alpha float64, grad []float64) (lp, ls float64) {
	return t.siameseGrad(x1, x2, t1, t2, types, d, cfg, alpha, nil, grad)
}

// SampledSiameseGrad is SiameseGrad with the sampled estimate of Eq. 5 for both
// members' prediction losses, on the output units of s, which the caller draws over
// the targets of both members (s.Draw(append(t1, t2...), |Γ|, M, rng)).
func (t *Trainer) SampledSiameseGrad(x1, x2 *mat.Dense, t1, t2 []Target, types []PairType, d []float64, cfg SiameseConfig, alpha float64, s *ColumnSample, grad []float64) (lp, ls float64) {
	return t.siameseGrad(x1, x2, t1, t2, types, d, cfg, alpha, s, grad)
}

func (t *Trainer) siameseGrad(x1, x2 *mat.Dense, t1, t2 []Target, types []PairType, d []float64, cfg SiameseConfig, alpha float64, s *ColumnSample, grad []float64) (lp, ls float64) {
	N, _ := x1.Dims()
	if r, _ := x2.Dims(); r != N || len(t1) != N || len(t2) != N || len(types) != N || len(d) != N {
		panic(fmt.Sprintf("nn: SiameseGrad with %d pairs but %d second members, %d+%d targets, %d types, %d similarities", N, r, len(t1), len(t2), len(types), len(d)))
	}
	m := t.Net
	H := m.Layers()
	if H < 2 {
		panic("nn: SiameseGrad needs at least one hidden layer")
	}
	C := m.Sizes[H-1]
	t.d1[0], t.d1[1] = grow(t.d1[0], N*m.Sizes[1]), grow(t.d1[1], N*m.Sizes[1])
	t.run(N, s, func(p *trainPart, lo, hi int) {
		n := hi - lo
		G := m.Sizes[H]
		if s != nil {
			G = len(s.Cols)
		}
		p.gOut1, p.gOut2 = grow(p.gOut1, n*G), grow(p.gOut2, n*G)
		p.gCE1, p.gCE2 = grow(p.gCE1, n*C), grow(p.gCE2, n*C)
		go1, go2 := mat.NewDense(n, G, p.gOut1), mat.NewDense(n, G, p.gOut2)
		gc1, gc2 := mat.NewDense(n, C, p.gCE1), mat.NewDense(n, C, p.gCE2)
		var lp1, lp2 float64
		delta := s == nil
		if s == nil {
			lp1 = forwardLoss(m, p.ws1, rowsOf(x1, lo, hi), t1[lo:hi], go1, N)
			lp2 = forwardLoss(m, p.ws2, rowsOf(x2, lo, hi), t2[lo:hi], go2, N)
		} else {
			forwardOut(m, p.ws1, rowsOf(x1, lo, hi), s, &t.cw)
			forwardOut(m, p.ws2, rowsOf(x2, lo, hi), s, &t.cw)
			lp1, _ = lossOut(p.ws1.Out(H), s, t1[lo:hi], go1, N, &p.st)
			lp2, _ = lossOut(p.ws2.Out(H), s, t2[lo:hi], go2, N, &p.st)
		}
		p.lp = lp1 + lp2
		p.ls = siameseLoss(p.ws1.Out(H-1), p.ws2.Out(H-1), types[lo:hi], d[lo:hi], cfg, gc1, gc2, N, alpha)
		grads := make([]*mat.Dense, H+1)
		grads[H], grads[H-1] = go1, gc1
		m.backward(p.ws1, grads, p.grad, true, delta, t.d1Rows(0, lo, hi))
		grads[H], grads[H-1] = go2, gc2
		m.backward(p.ws2, grads, p.grad, false, delta, t.d1Rows(1, lo, hi))
	})
	var cols []int
	if s != nil {
		cols = s.Cols
	}
	t.finish(grad, cols, x1, x2)
	for _, p := range t.parts {
		lp += p.lp
		ls += p.ls
	}
	return lp, ls
}
