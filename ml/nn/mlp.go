package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// MLP is a fully connected tanh network z_h = tanh(W_h z_{h-1} + b_h), h = 1..H, with
// z_0 = x (paper §4.3). Sizes[0] is the input width, Sizes[h] the width of layer h and
// H = len(Sizes)-1 the number of weight layers; the paper's subnetwork is
// input → 100 → 100 → 10 → |Γ| (H = 4, CE = z_{H-1}).
//
// All parameters live in the flat slice Params, layer after layer: for h = 1..H first
// W_h as a row-major Sizes[h]×Sizes[h-1] matrix (out×in, the paper's orientation: row
// j holds the incoming weights of unit j), then b_h (Sizes[h] values). Gradients use
// the same layout (see Layout). The out×in orientation makes the rows of the output
// layer that belong to a subset of output units contiguous, which the restricted
// output path (ForwardCols) exploits.
type MLP struct {
	Sizes  []int
	Params []float64
}

// NumParams returns the length of the flat parameter vector of a network with the
// given layer sizes: Σ_h Sizes[h]·Sizes[h-1] + Sizes[h].
func NumParams(sizes []int) int {
	checkSizes(sizes)
	n := 0
	for h := 1; h < len(sizes); h++ {
		n += sizes[h]*sizes[h-1] + sizes[h]
	}
	return n
}

func checkSizes(sizes []int) {
	if len(sizes) < 2 {
		panic("nn: an MLP needs at least 2 sizes (input and output)")
	}
	for _, s := range sizes {
		if s <= 0 {
			panic(fmt.Sprintf("nn: non-positive layer size in %v", sizes))
		}
	}
}

// Layout gives the offsets of each layer's weights and biases inside a flat
// parameter (or gradient) vector of a network with the given sizes.
type Layout struct {
	Sizes []int
	// W[h] is the offset of W_h (Sizes[h]×Sizes[h-1], row-major) and B[h] the
	// offset of b_h, for h = 1..H; index 0 is unused.
	W, B []int
	// N is the total number of parameters.
	N int
}

// NewLayout returns the layout of a network with the given sizes.
func NewLayout(sizes []int) Layout {
	checkSizes(sizes)
	H := len(sizes) - 1
	l := Layout{Sizes: append([]int(nil), sizes...), W: make([]int, H+1), B: make([]int, H+1)}
	off := 0
	for h := 1; h <= H; h++ {
		l.W[h] = off
		off += sizes[h] * sizes[h-1]
		l.B[h] = off
		off += sizes[h]
	}
	l.N = off
	return l
}

// Weights returns a Sizes[h]×Sizes[h-1] view of W_h inside p (sharing memory).
func (l Layout) Weights(p []float64, h int) *mat.Dense {
	l.checkLayer(p, h)
	r, c := l.Sizes[h], l.Sizes[h-1]
	return mat.NewDense(r, c, p[l.W[h]:l.W[h]+r*c:l.W[h]+r*c])
}

// Bias returns the slice of p holding b_h (sharing memory).
func (l Layout) Bias(p []float64, h int) []float64 {
	l.checkLayer(p, h)
	return p[l.B[h] : l.B[h]+l.Sizes[h] : l.B[h]+l.Sizes[h]]
}

// Layer returns the sub-slice of p holding W_h followed by b_h.
func (l Layout) Layer(p []float64, h int) []float64 {
	l.checkLayer(p, h)
	return p[l.W[h] : l.B[h]+l.Sizes[h]]
}

func (l Layout) checkLayer(p []float64, h int) {
	if h < 1 || h >= len(l.Sizes) {
		panic(fmt.Sprintf("nn: layer %d out of range [1,%d]", h, len(l.Sizes)-1))
	}
	if len(p) != l.N {
		panic(fmt.Sprintf("nn: parameter vector has length %d, want %d", len(p), l.N))
	}
}

// NewMLP returns a network with the given sizes whose weights are drawn from the
// uniform distribution U(-r, r), r = sqrt(6/(in+out)) (Glorot & Bengio 2010, the usual
// choice for tanh units), and whose biases are zero. It panics if len(sizes) < 2 or a
// size is not positive.
func NewMLP(sizes []int, rng *rand.Rand) *MLP {
	l := NewLayout(sizes)
	m := &MLP{Sizes: l.Sizes, Params: make([]float64, l.N)}
	for h := 1; h < len(sizes); h++ {
		r := math.Sqrt(6 / float64(sizes[h]+sizes[h-1]))
		w := m.Params[l.W[h]:l.B[h]]
		for i := range w {
			w[i] = (2*rng.Float64() - 1) * r
		}
	}
	return m
}

// Layers returns H, the number of weight layers.
func (m *MLP) Layers() int { return len(m.Sizes) - 1 }

// Layout returns the parameter layout of m.
func (m *MLP) Layout() Layout { return NewLayout(m.Sizes) }

// Weights returns a Sizes[h]×Sizes[h-1] view of W_h (sharing memory with Params).
func (m *MLP) Weights(h int) *mat.Dense { return m.Layout().Weights(m.Params, h) }

// Bias returns the slice of Params holding b_h.
func (m *MLP) Bias(h int) []float64 { return m.Layout().Bias(m.Params, h) }

// Clone returns a deep copy of m.
func (m *MLP) Clone() *MLP {
	return &MLP{Sizes: append([]int(nil), m.Sizes...), Params: append([]float64(nil), m.Params...)}
}

func (m *MLP) check() {
	checkSizes(m.Sizes)
	if n := NumParams(m.Sizes); len(m.Params) != n {
		panic(fmt.Sprintf("nn: MLP has %d parameters, sizes %v need %d", len(m.Params), m.Sizes, n))
	}
}
