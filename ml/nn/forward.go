package nn

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// ForwardTo computes z_1..z_upTo for the batch x (rows = examples, Sizes[0] columns)
// into ws: z_h = tanh(z_{h-1} W_hᵀ + b_h) row-wise. upTo = H gives the prediction ŷ,
// upTo = H-1 the concept embedding CE (§4.3). x must not change until Backward is
// done with it. It panics on a shape mismatch or upTo outside [1, H].
func (m *MLP) ForwardTo(ws *Workspace, x *mat.Dense, upTo int) {
	H := m.Layers()
	if upTo < 1 || upTo > H {
		panic(fmt.Sprintf("nn: ForwardTo layer %d outside [1,%d]", upTo, H))
	}
	m.forwardHidden(ws, x, upTo, nil)
	ws.cols = nil
	ws.upTo = upTo
}

// ForwardInto is ForwardTo that writes z_upTo into dst (rows × Sizes[upTo],
// row-major) instead of the workspace, for callers that keep the result: the
// same values, without a copy. ws.Out(upTo) is not valid afterwards, and Backward
// must not follow it.
func (m *MLP) ForwardInto(ws *Workspace, x *mat.Dense, upTo int, dst []float64) {
	H := m.Layers()
	if upTo < 1 || upTo > H {
		panic(fmt.Sprintf("nn: ForwardInto layer %d outside [1,%d]", upTo, H))
	}
	if r, _ := x.Dims(); len(dst) < r*m.Sizes[upTo] {
		panic(fmt.Sprintf("nn: ForwardInto destination of %d values for %d×%d", len(dst), r, m.Sizes[upTo]))
	}
	m.forwardHidden(ws, x, upTo, dst)
	ws.cols = nil
	ws.upTo = 0
}

// forwardHidden computes z_1..z_upTo; with last != nil, z_upTo goes to last.
func (m *MLP) forwardHidden(ws *Workspace, x *mat.Dense, upTo int, last []float64) {
	m.check()
	ws.check(m)
	r, c := x.Dims()
	if c != m.Sizes[0] {
		panic(fmt.Sprintf("nn: input has %d columns, want %d", c, m.Sizes[0]))
	}
	ws.grow(r)
	ws.batch = r
	ws.x = x.RawMatrix()
	l := m.Layout()
	in, ld := ws.x.Data, ws.x.Stride
	for h := 1; h <= upTo; h++ {
		if h == m.Layers() {
			break
		}
		out := ws.z[h]
		if h == upTo && last != nil {
			out = last
		}
		n, k := m.Sizes[h], m.Sizes[h-1]
		ws.layerProduct(r, n, k, in, ld, m.Params[l.W[h]:l.B[h]], h, out)
		biasTanh(out[:r*n], n, m.Params[l.B[h]:l.B[h]+n])
		in, ld = out, n
	}
	if upTo == m.Layers() {
		h := upTo
		n, k := m.Sizes[h], m.Sizes[h-1]
		out := ws.z[h]
		if last != nil {
			out = last
		}
		ws.layerProduct(r, n, k, in, ld, m.Params[l.W[h]:l.B[h]], h, out)
		biasTanh(out[:r*n], n, m.Params[l.B[h]:l.B[h]+n])
	}
}

// layerProduct sets out = in·Wᵀ for layer h (in r×k with stride ld, W n×k), using
// the packed weights shared by a Trainer when present.
func (ws *Workspace) layerProduct(r, n, k int, in []float64, ld int, W []float64, h int, out []float64) {
	if useAsm && ws.pre != nil && ws.pre[h] != nil {
		gemmAsm(r, n, k, in, ld, 1, nil, 0, 0, out, n, false, &ws.pack, ws.pre[h])
		return
	}
	gemmNT(r, n, k, in, ld, W, k, out, n, false, &ws.pack)
}

// biasTanh sets z[i,j] = tanh(z[i,j] + b[j]) for a row-major matrix of width n. With
// the assembly kernels it uses the vectorised tanh (tanhAddAVX2 and, with AVX-512, its
// 8-lane twin, which gives the same results; within a few ulp of math.Tanh); the last
// n mod 4 entries of a row go through the same kernel via a padded copy, so an
// entry's value does not depend on its position.
func biasTanh(z []float64, n int, b []float64) {
	if !useAsm {
		for i := 0; i+n <= len(z); i += n {
			row := z[i : i+n]
			for j, v := range row {
				row[j] = math.Tanh(v + b[j])
			}
		}
		return
	}
	b = b[:n]
	n4 := n &^ 3
	n8 := 0
	if useAVX512 {
		n8 = n &^ 7
	}
	if n4 < n && len(z) >= 8*n {
		// A width that is not a multiple of 4 would leave a padded tail call
		// per row: instead, blocks of 8 rows run as one flat vector against the
		// bias repeated 8 times (8n is a multiple of 8; the kernel treats every
		// lane alike, so each entry gets the value it gets row by row).
		bt := tilePool.Get().(*[]float64)
		tile := grow(*bt, 8*n)
		for r := range 8 {
			copy(tile[r*n:(r+1)*n], b)
		}
		blocks := len(z) / (8 * n)
		for q := range blocks {
			tanhAddFlat(z[q*8*n:(q+1)*8*n], tile)
		}
		*bt = tile
		tilePool.Put(bt)
		z = z[blocks*8*n:]
	}
	for i := 0; i+n <= len(z); i += n {
		row := z[i : i+n]
		if n8 > 0 {
			tanhAddAVX512(&row[0], &b[0], n8)
		}
		if n4 > n8 {
			tanhAddAVX2(&row[n8], &b[n8], n4-n8)
		}
		if n4 < n {
			tanhAddTail(row[n4:], b[n4:])
		}
	}
}

// tilePool holds biasTanh's repeated bias vectors.
var tilePool = sync.Pool{New: func() any { return new([]float64) }}

// tanhAddFlat sets z[j] = tanh(z[j] + b[j]) for len(z) = len(b) a multiple of 8
// with the widest kernel the CPU has.
func tanhAddFlat(z, b []float64) {
	if useAVX512 {
		tanhAddAVX512(&z[0], &b[0], len(z))
		return
	}
	tanhAddAVX2(&z[0], &b[0], len(z))
}

// tanhAddTail sets z[j] = tanh(z[j] + b[j]) for len(z) < 4 with tanhAddAVX2.
func tanhAddTail(z, b []float64) {
	var zz, bb [4]float64
	copy(zz[:], z)
	copy(bb[:], b)
	tanhAddAVX2(&zz[0], &bb[0], 4)
	copy(z, zz[:])
}

// ForwardCols computes the hidden layers z_1..z_{H-1} for the batch x and the output
// layer restricted to the output units cols (distinct indices in [0, Sizes[H])):
// Out(H) is then batch×len(cols) with column c = tanh(z_{H-1} W_H[cols[c],:]ᵀ +
// b_H[cols[c]]). Its cost in the output layer is proportional to len(cols), not
// Sizes[H]. Backward after ForwardCols takes grads[H] of shape batch×len(cols) and
// touches only the rows cols of W_H and entries cols of b_H. cols must not change
// until Backward is done.
func (m *MLP) ForwardCols(ws *Workspace, x *mat.Dense, cols []int) {
	m.forwardCols(ws, x, cols, nil)
}

// colWeights holds the rows cols of W_H and the entries cols of b_H, gathered
// once for all the forward passes of a sampled Trainer call (both parts, both
// members of a pair), with the rows packed for the GEMM kernels (nil without
// them). The forward passes only read it.
type colWeights struct {
	w, b, packed []float64
}

// gather fills part i of P of cw (the rows cols[i·n/P : (i+1)·n/P]) for the
// output layer of m: the parts of a Trainer gather disjoint rows concurrently.
func (cw *colWeights) gather(m *MLP, cols []int, i, P int) {
	gatherOutputRows(m, cols, i*len(cols)/P, (i+1)*len(cols)/P, cw.w, cw.b)
}

// gatherOutputRows copies the rows cols[lo:hi] of W_H into w (row c at
// w[c·k:(c+1)·k], k = Sizes[H-1]) and the entries of b_H into b[c], for c in
// [lo, hi). It panics on a column outside [0, Sizes[H]).
func gatherOutputRows(m *MLP, cols []int, lo, hi int, w, b []float64) {
	H := m.Layers()
	nOut, k := m.Sizes[H], m.Sizes[H-1]
	l := m.Layout()
	W := m.Params[l.W[H]:l.B[H]]
	bH := m.Params[l.B[H] : l.B[H]+nOut]
	for c := lo; c < hi; c++ {
		j := cols[c]
		if j < 0 || j >= nOut {
			panic(fmt.Sprintf("nn: output column %d outside [0,%d)", j, nOut))
		}
		copy(w[c*k:(c+1)*k], W[j*k:(j+1)*k])
		b[c] = bH[j]
	}
}

// forwardCols is ForwardCols; with cw not nil the output rows come from cw
// (already gathered and packed) instead of being gathered here.
func (m *MLP) forwardCols(ws *Workspace, x *mat.Dense, cols []int, cw *colWeights) {
	H := m.Layers()
	if H < 2 {
		panic("nn: ForwardCols needs at least one hidden layer")
	}
	m.forwardHidden(ws, x, H-1, nil)
	k := m.Sizes[H-1]
	nc := len(cols)
	if cap(ws.dwsub) < nc*k {
		ws.dwsub = make([]float64, nc*k)
	}
	ws.dwsub = ws.dwsub[:nc*k]
	var pre []float64
	if cw != nil {
		ws.wsub, ws.bsub, pre = cw.w[:nc*k], cw.b[:nc], cw.packed
	} else {
		if cap(ws.wown) < nc*k {
			ws.wown = make([]float64, nc*k)
			ws.bown = make([]float64, nc)
		}
		ws.wsub, ws.bsub = ws.wown[:nc*k], ws.bown[:nc]
		gatherOutputRows(m, cols, 0, nc, ws.wsub, ws.bsub)
	}
	r := ws.batch
	if cap(ws.zsub) < ws.cap*nc {
		ws.zsub = make([]float64, ws.cap*nc)
	}
	ws.zsub = ws.zsub[:ws.cap*nc]
	ws.cols = cols
	if cols == nil {
		ws.cols = []int{}
	}
	if pre != nil && useAsm {
		gemmAsm(r, nc, k, ws.z[H-1], k, 1, nil, 0, 0, ws.zsub, nc, false, &ws.pack, pre)
	} else {
		gemmNT(r, nc, k, ws.z[H-1], k, ws.wsub, k, ws.zsub, nc, false, &ws.pack)
	}
	biasTanh(ws.zsub[:r*nc], nc, ws.bsub)
	ws.upTo = H
}

// Backward back-propagates through the layers computed by the last forward pass and
// adds ∂L/∂θ to dParams (same layout as Params; it is accumulated into, not
// overwritten). grads[h], for h = 1..upTo, is ∂L/∂z_h (batch×Sizes[h], the
// gradient with respect to the layer's tanh OUTPUT) or nil when the loss does not act
// on layer h directly; len(grads) may be smaller than upTo+1 (missing entries are
// nil). This lets a loss act on the output layer (Eq. 5: grads[H]) and on the CE
// layer (Eq. 6: grads[H-1]) in one pass. grads are not modified. The gradient with
// respect to the input x is not computed.
//
// With δ_h = ∂L/∂a_h, a_h = z_{h-1}W_hᵀ + b_h (Appendix A.2-A.3, Eq. A.2-A.4):
//
//	δ_h = (grads[h] + δ_{h+1} W_{h+1}) ⊙ (1 - z_h²)
//	∂L/∂W_h = δ_hᵀ z_{h-1},   ∂L/∂b_h = Σ_rows δ_h.
//
// It panics on a shape mismatch.
func (m *MLP) Backward(ws *Workspace, grads []*mat.Dense, dParams []float64) {
	m.backward(ws, grads, dParams, false, false, nil)
}

// backward is Backward; with overwrite it sets dParams to ∂L/∂θ instead of adding to
// it (saving the clearing of a large gradient vector); with topDelta, grads[ws.upTo]
// is already δ of that layer (∂L/∂a, the tanh derivative applied, as
// predictionLossFold writes it). If d1 is not nil (len ≥ batch·Sizes[1]), δ_1 is
// written there instead and the layer-1 part of dParams is left alone (a Trainer forms
// ∂L/∂W_1 over the whole batch at once).
// Kept in one function: the layers' deltas flow from one step to the next
// through the same workspace buffers, and splitting the pass would scatter that
// shared state.
func (m *MLP) backward(ws *Workspace, grads []*mat.Dense, dParams []float64, overwrite, topDelta bool, d1 []float64) {
	ws.check(m)
	l := m.Layout()
	if len(dParams) != l.N {
		panic(fmt.Sprintf("nn: gradient vector has length %d, want %d", len(dParams), l.N))
	}
	top := ws.upTo
	if top == 0 {
		panic("nn: Backward before a forward pass")
	}
	r := ws.batch
	H := m.Layers()
	if overwrite {
		for h := top + 1; h <= H; h++ {
			clear(l.Layer(dParams, h))
		}
	}
	have := false // whether ws.g[h] holds a propagated gradient
	for h := top; h >= 1; h-- {
		n, k := ws.width(h), m.Sizes[h-1]
		z := ws.out(h)[:r*n]
		d := ws.delta[:r*n]
		var gin []float64
		if h < len(grads) && grads[h] != nil {
			gin = rawOf(grads[h], r, n, h)
		}
		if !have && gin == nil {
			// Nothing reaches this layer: ∂L/∂θ_h = 0 and nothing flows below
			// unless a lower layer has its own gradient.
			if h == 1 && d1 != nil {
				clear(d1[:r*n])
				return
			}
			if overwrite {
				clear(l.Layer(dParams, h))
			}
			continue
		}
		var gprop []float64
		if have {
			gprop = ws.g[h][:r*n]
		}
		if h == 1 && d1 != nil {
			d = d1[:r*n]
			if topDelta && h == top {
				copy(d, gin)
			} else {
				tanhBack(d, z, gin, gprop)
			}
			return
		}
		if topDelta && h == top {
			d = gin
		} else {
			tanhBack(d, z, gin, gprop)
		}
		// Parameter gradients.
		var zin []float64
		ldin := k
		if h == 1 {
			zin, ldin = ws.x.Data, ws.x.Stride
		} else {
			zin = ws.z[h-1]
		}
		if h == H && ws.restricted() {
			gemmTN(n, k, r, d, n, zin, ldin, ws.dwsub, k, false, &ws.pack)
			dW := dParams[l.W[H]:l.B[H]]
			db := dParams[l.B[H] : l.B[H]+m.Sizes[H]]
			// Only the rows of the sampled units are written: the other rows
			// of dW are left as they are, and Trainer.finish reads only these
			// rows of the parts' gradients. Overwritten, a row is 0 + its
			// product (not a copy: a −0 becomes +0, as a cleared row's sum
			// does); else the product is added.
			for c, j := range ws.cols {
				dst := dW[j*k : (j+1)*k]
				src := ws.dwsub[c*k : (c+1)*k]
				if overwrite {
					for p, v := range src {
						dst[p] = 0 + v
					}
				} else {
					for p, v := range src {
						dst[p] += v
					}
				}
			}
			// The sampled units' biases: gathered, summed over the rows in
			// order as the dense layers' are, scattered back.
			if overwrite {
				clear(db)
			}
			ws.dbsub = grow(ws.dbsub, n)
			for c, j := range ws.cols {
				ws.dbsub[c] = db[j]
			}
			colSumsAdd(ws.dbsub, d[:r*n], n)
			for c, j := range ws.cols {
				db[j] = ws.dbsub[c]
			}
		} else {
			gemmTN(n, k, r, d, n, zin, ldin, dParams[l.W[h]:l.B[h]], k, !overwrite, &ws.pack)
			db := dParams[l.B[h] : l.B[h]+n]
			if overwrite {
				copy(db, d[:n])
				colSumsAdd(db, d[n:], n)
			} else {
				colSumsAdd(db, d, n)
			}
		}
		// Propagate to z_{h-1}.
		if h == 1 {
			break
		}
		W := m.Params[l.W[h]:l.B[h]]
		if h == H && ws.restricted() {
			W = ws.wsub
		}
		gemmNN(r, k, n, d, n, W, k, ws.g[h-1], k, false, &ws.pack)
		have = true
	}
}

// tanhBack sets d = (gin + gprop) ⊙ (1 - z²), either gradient may be nil (not both).
// The products are rounded explicitly (D35), so a GOAMD64=v3 build cannot fuse
// them and the Go loop gives tanhBackAVX2's bits.
func tanhBack(d, z, gin, gprop []float64) {
	g, h := gin, gprop
	if g == nil {
		g, h = gprop, nil
	}
	d, g = d[:len(z)], g[:len(z)]
	if h != nil {
		h = h[:len(z)]
	}
	if useAsm && len(z) >= 4 {
		m := len(z) &^ 3
		var hp *float64
		if h != nil {
			hp = &h[0]
		}
		tanhBackAVX2(&d[0], &z[0], &g[0], hp, m)
		d, z, g = d[m:], z[m:], g[m:]
		if h != nil {
			h = h[m:]
		}
	}
	if h != nil {
		for i, v := range z {
			d[i] = (g[i] + h[i]) * (1 - float64(v*v))
		}
		return
	}
	for i, v := range z {
		d[i] = g[i] * (1 - float64(v*v))
	}
}

// colSumsAdd adds the column sums of the row-major matrix d (width n) to dst,
// each column's entries in row order (so the AVX2 loop gives the Go loop's bits).
func colSumsAdd(dst, d []float64, n int) {
	rows := len(d) / n
	j0 := 0
	if useAsm && rows > 0 && n >= 4 {
		j0 = n &^ 3
		colSumsAddAVX2(&dst[0], &d[0], rows, n, j0)
	}
	if j0 == n {
		return
	}
	for i := 0; i < rows; i++ {
		for j, v := range d[i*n+j0 : (i+1)*n] {
			dst[j0+j] += v
		}
	}
}

// rawOf returns the contiguous row-major data of g, which must be r×n; a strided view
// is copied into a fresh slice (callers should pass contiguous matrices).
func rawOf(g *mat.Dense, r, n, h int) []float64 {
	gr, gc := g.Dims()
	if gr != r || gc != n {
		panic(fmt.Sprintf("nn: gradient for layer %d is %d×%d, want %d×%d", h, gr, gc, r, n))
	}
	raw := g.RawMatrix()
	if raw.Stride == n {
		return raw.Data[:r*n]
	}
	out := make([]float64, r*n)
	for i := 0; i < r; i++ {
		copy(out[i*n:(i+1)*n], raw.Data[i*raw.Stride:i*raw.Stride+n])
	}
	return out
}
