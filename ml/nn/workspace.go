package nn

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Workspace holds the activations and back-propagation buffers of one batch. A
// Workspace is used by one goroutine at a time; parallel workers each own one. It
// grows (allocating) when a batch larger than any before arrives, and otherwise
// performs no allocation.
type Workspace struct {
	sizes []int
	cap   int // rows the buffers hold

	batch int // rows of the last forward pass
	upTo  int // last layer computed by the last forward pass
	x     blas64.General
	z     [][]float64 // z[h] = z_h, batch×Sizes[h] (z[0] unused: the input is x)
	g     [][]float64 // back-propagated ∂L/∂z_h for hidden layers
	delta []float64   // ∂L/∂a_h of the layer being processed
	pack  packBuf     // GEMM packing scratch
	// pre[h], when set by a Trainer, is W_h packed by packNT for the current
	// parameters, shared read-only by the Trainer's parts.
	pre [][]float64

	// restricted output path (ForwardCols)
	cols       []int
	wsub       []float64 // len(cols)×Sizes[H-1]: wown, or a Trainer's shared colWeights
	bsub       []float64
	wown, bown []float64 // the workspace's own gathered rows
	dwsub      []float64
	dbsub      []float64 // the sampled units' bias gradients, gathered
	zsub       []float64 // batch×len(cols)
}

// NewWorkspace returns a workspace for networks with the given sizes and batches of
// up to maxBatch rows (larger batches make it grow).
func NewWorkspace(sizes []int, maxBatch int) *Workspace {
	checkSizes(sizes)
	ws := &Workspace{sizes: append([]int(nil), sizes...)}
	ws.grow(max(maxBatch, 1))
	return ws
}

func (ws *Workspace) grow(rows int) {
	if rows <= ws.cap {
		return
	}
	H := len(ws.sizes) - 1
	ws.z = make([][]float64, H+1)
	ws.g = make([][]float64, H+1)
	maxW := 0
	for h := 1; h <= H; h++ {
		ws.z[h] = make([]float64, rows*ws.sizes[h])
		if h < H {
			ws.g[h] = make([]float64, rows*ws.sizes[h])
		}
		maxW = max(maxW, ws.sizes[h])
	}
	ws.delta = make([]float64, rows*maxW)
	ws.zsub = nil
	ws.cap = rows
}

func (ws *Workspace) check(m *MLP) {
	if len(ws.sizes) != len(m.Sizes) {
		panic(fmt.Sprintf("nn: workspace sizes %v do not match network sizes %v", ws.sizes, m.Sizes))
	}
	for i, s := range m.Sizes {
		if ws.sizes[i] != s {
			panic(fmt.Sprintf("nn: workspace sizes %v do not match network sizes %v", ws.sizes, m.Sizes))
		}
	}
}

// Batch returns the number of rows of the last forward pass.
func (ws *Workspace) Batch() int { return ws.batch }

// Out returns a batch×Sizes[h] view of z_h computed by the last forward pass (h = 0
// gives the input). After ForwardCols, Out(H) is batch×len(cols): column c holds
// output unit cols[c]. The view is overwritten by the next forward pass. It panics
// if layer h was not computed.
func (ws *Workspace) Out(h int) *mat.Dense {
	if h < 0 || h > ws.upTo {
		panic(fmt.Sprintf("nn: layer %d not computed (last forward pass stopped at %d)", h, ws.upTo))
	}
	if h == 0 {
		var d mat.Dense
		d.SetRawMatrix(ws.x)
		return &d
	}
	n := ws.width(h)
	return mat.NewDense(ws.batch, n, ws.out(h)[:ws.batch*n])
}

func (ws *Workspace) restricted() bool { return ws.cols != nil }

// width returns the number of columns stored for layer h.
func (ws *Workspace) width(h int) int {
	if h == len(ws.sizes)-1 && ws.restricted() {
		return len(ws.cols)
	}
	return ws.sizes[h]
}

func (ws *Workspace) out(h int) []float64 {
	if h == len(ws.sizes)-1 && ws.restricted() {
		return ws.zsub
	}
	return ws.z[h]
}

// Packed holds the weight matrices of a network packed once for the assembly
// GEMM kernels, for forward passes that reuse unchanged weights many times (an
// embedder runs every vocabulary term through the same network for every
// document). The results are those of packing on every call.
type Packed struct{ pre [][]float64 }

// Pack returns W_1..W_H of m's current parameters packed for the assembly
// kernels, or nil when they do not run. The packed copy does not follow later
// changes of m.Params.
func (m *MLP) Pack() *Packed {
	if !useAsm {
		return nil
	}
	l := m.Layout()
	H := m.Layers()
	p := &Packed{pre: make([][]float64, H+1)}
	for h := 1; h <= H; h++ {
		p.pre[h] = packNT(nil, m.Params[l.W[h]:l.B[h]], m.Sizes[h], m.Sizes[h-1])
	}
	return p
}

// UsePacked makes the forward passes of ws read the weights from p instead of
// packing them per call (nil: pack per call again). p must come from Pack of the
// network ws is used with, and the kernel choice must not change in between.
func (ws *Workspace) UsePacked(p *Packed) {
	if p == nil {
		ws.pre = nil
		return
	}
	ws.pre = p.pre
}
