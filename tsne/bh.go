package tsne

import "math"

// bhGrad is the Barnes-Hut gradient (van der Maaten 2014, Eq. 5 and Sec. 4.2):
//
//	∂C/∂y_i = 4 (exag·Σ_j p_ij w_ij (y_i−y_j) − (1/Z) Σ_j w_ij² (y_i−y_j)),
//
// the attractive sum over the sparse P, the repulsive sum and
// Z = Σ_{k≠l} w_kl over quadtree cells: a cell of side s holding N points with
// centre of mass c is used as one point of mass N when s/‖y_i − c‖ < θ.
type bhGrad struct {
	P       *csr
	n       int
	theta   float64
	workers int
	plogp   float64
	tree    quadTree
	attr    []float64
	rep     []float64
	zpart   []float64
	klpart  []float64
	stacks  [][]int32
}

func newBHGrad(P *csr, n int, theta float64, workers int) *bhGrad {
	nb := numBlocks(n)
	return &bhGrad{
		P: P, n: n, theta: theta, workers: workers, plogp: P.plogp(),
		attr: make([]float64, 2*n), rep: make([]float64, 2*n),
		zpart: make([]float64, nb), klpart: make([]float64, nb),
	}
}

func (b *bhGrad) grad(y, g []float64, exag float64, wantKL bool) float64 {
	b.tree.build(y, b.n)
	th2 := b.theta * b.theta
	forBlocks(b.n, b.workers, func(blk, lo, hi int) {
		b.klpart[blk] = b.P.attractive(y, b.attr, lo, hi, wantKL)
		var stack []int32
		z := 0.0
		// Points in tree order: neighbours in space walk the same cells.
		for _, i := range b.tree.idx[lo:hi] {
			var r0, r1, zi float64
			r0, r1, zi, stack = b.tree.repulse(y[2*i], y[2*i+1], i, th2, stack)
			b.rep[2*i], b.rep[2*i+1] = r0, r1
			z += zi
		}
		b.zpart[blk] = z
	})
	Z := sumOrdered(b.zpart)
	invZ := 1 / Z
	for i := range g {
		g[i] = 4 * (exag*b.attr[i] - b.rep[i]*invZ)
	}
	if !wantKL {
		return math.NaN()
	}
	// KL = Σ p ln p − Σ p ln w + ln Z (Σ p = 1).
	return b.plogp - sumOrdered(b.klpart) + math.Log(Z)
}

// quadTree is a point-region quadtree over a 2-D embedding with leaf buckets,
// rebuilt every iteration into reused storage. Points are permuted into tree
// order (idx) and their coordinates copied contiguously (pos), so a leaf is a
// contiguous run.
type quadTree struct {
	nodes []qNode
	idx   []int32   // point indices in tree order
	pos   []float64 // coordinates in tree order, flat
	tmp   []int32
}

type qNode struct {
	mx, my float64  // centre of mass
	side2  float64  // squared side of the cell
	count  int32    // points below
	lo, hi int32    // range in idx of the points below
	child  [4]int32 // -1 when absent; all -1 for a leaf
}

const (
	qLeafSize    = 16 // a cell with at most this many points is a leaf
	maxQuadDepth = 40 // deeper cells (coincident points) are leaves
)

// build makes the tree of the points y (flat n×2); the tree is a pure
// function of y, so results do not depend on worker count.
func (t *quadTree) build(y []float64, n int) {
	minX, maxX := math.Inf(1), math.Inf(-1)
	minY, maxY := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		minX, maxX = min(minX, y[2*i]), max(maxX, y[2*i])
		minY, maxY = min(minY, y[2*i+1]), max(maxY, y[2*i+1])
	}
	half := max(maxX-minX, maxY-minY)/2*(1+1e-9) + 1e-300
	if cap(t.idx) < n {
		t.idx = make([]int32, n)
		t.tmp = make([]int32, n)
		t.pos = make([]float64, 2*n)
	}
	t.idx, t.tmp, t.pos = t.idx[:n], t.tmp[:n], t.pos[:2*n]
	for i := range t.idx {
		t.idx[i] = int32(i)
	}
	t.nodes = t.nodes[:0]
	t.split(y, 0, n, (minX+maxX)/2, (minY+maxY)/2, half, 0)
	for k, i := range t.idx {
		t.pos[2*k], t.pos[2*k+1] = y[2*i], y[2*i+1]
	}
}

// split builds the node for idx[lo:hi] in the square cell of centre (cx, cy)
// and half side half, and returns its index.
func (t *quadTree) split(y []float64, lo, hi int, cx, cy, half float64, depth int) int32 {
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, qNode{side2: 4 * half * half, count: int32(hi - lo), lo: int32(lo), hi: int32(hi), child: [4]int32{-1, -1, -1, -1}})
	if hi-lo <= qLeafSize || depth >= maxQuadDepth {
		var sx, sy float64
		for _, i := range t.idx[lo:hi] {
			sx += y[2*i]
			sy += y[2*i+1]
		}
		t.nodes[id].mx, t.nodes[id].my = sx/float64(hi-lo), sy/float64(hi-lo)
		return id
	}
	// Stable counting partition into quadrants 0..3 (bit 0: x ≥ cx, bit 1: y ≥ cy).
	var cnt [4]int
	for _, i := range t.idx[lo:hi] {
		cnt[quadrantOf(y[2*i], y[2*i+1], cx, cy)]++
	}
	var start [5]int
	start[0] = lo
	for q := 0; q < 4; q++ {
		start[q+1] = start[q] + cnt[q]
	}
	fill := start
	for _, i := range t.idx[lo:hi] {
		q := quadrantOf(y[2*i], y[2*i+1], cx, cy)
		t.tmp[fill[q]] = i
		fill[q]++
	}
	copy(t.idx[lo:hi], t.tmp[lo:hi])
	h := half / 2
	var sx, sy float64
	for q := 0; q < 4; q++ {
		if cnt[q] == 0 {
			continue
		}
		qx, qy := cx-h, cy-h
		if q&1 != 0 {
			qx = cx + h
		}
		if q&2 != 0 {
			qy = cy + h
		}
		c := t.split(y, start[q], start[q+1], qx, qy, h, depth+1)
		t.nodes[id].child[q] = c
		cn := &t.nodes[c]
		sx += cn.mx * float64(cn.count)
		sy += cn.my * float64(cn.count)
	}
	t.nodes[id].mx, t.nodes[id].my = sx/float64(hi-lo), sy/float64(hi-lo)
	return id
}

func quadrantOf(x, y, cx, cy float64) int {
	q := 0
	if x >= cx {
		q |= 1
	}
	if y >= cy {
		q |= 2
	}
	return q
}

// repulse returns Σ_j w_ij² (y_i − y_j) and Σ_{j≠i} w_ij for the point (x, y)
// with index self (−1 for a point not in the tree), summarising a cell by its
// centre of mass when side² < θ²·dist² (th2 = θ²); leaves are summed exactly.
func (t *quadTree) repulse(x, y float64, self int32, th2 float64, stack []int32) (r0, r1, z float64, _ []int32) {
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &t.nodes[id]
		d0, d1 := x-nd.mx, y-nd.my
		d2 := d0*d0 + d1*d1
		if nd.side2 < th2*d2 {
			w := 1 / (1 + d2)
			mw := float64(nd.count) * w
			z += mw
			mw *= w
			r0 += mw * d0
			r1 += mw * d1
			continue
		}
		if nd.child == [4]int32{-1, -1, -1, -1} {
			pos := t.pos[2*nd.lo : 2*nd.hi]
			for k, j := range t.idx[nd.lo:nd.hi] {
				if j == self {
					continue
				}
				e0, e1 := x-pos[2*k], y-pos[2*k+1]
				w := 1 / (1 + e0*e0 + e1*e1)
				z += w
				w *= w
				r0 += w * e0
				r1 += w * e1
			}
			continue
		}
		for _, c := range nd.child {
			if c >= 0 {
				stack = append(stack, c)
			}
		}
	}
	return r0, r1, z, stack
}
