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
		for i := lo; i < hi; i++ {
			var r0, r1, zi float64
			r0, r1, zi, stack = b.tree.repulse(y[2*i], y[2*i+1], int32(i), th2, stack)
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

// quadTree is a point-region quadtree over a 2-D embedding, rebuilt every
// iteration into preallocated node storage.
type quadTree struct {
	nodes []qNode
}

type qNode struct {
	cx, cy, half float64  // square cell centre and half side
	mx, my       float64  // centre of mass
	count        int32    // points below
	point        int32    // the single point of a leaf, -1 for inner nodes and empty
	child        [4]int32 // -1 when absent; all -1 for a leaf
}

// maxQuadDepth bounds the depth: coincident points share a leaf there.
const maxQuadDepth = 50

func (t *quadTree) build(y []float64, n int) {
	minX, maxX := math.Inf(1), math.Inf(-1)
	minY, maxY := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		minX, maxX = min(minX, y[2*i]), max(maxX, y[2*i])
		minY, maxY = min(minY, y[2*i+1]), max(maxY, y[2*i+1])
	}
	half := max(maxX-minX, maxY-minY)/2*(1+1e-6) + 1e-12
	t.nodes = t.nodes[:0]
	t.nodes = append(t.nodes, qNode{cx: (minX + maxX) / 2, cy: (minY + maxY) / 2, half: half, point: -1, child: [4]int32{-1, -1, -1, -1}})
	for i := 0; i < n; i++ {
		t.insert(y, int32(i))
	}
	// Turn the running sums into centres of mass.
	for k := range t.nodes {
		nd := &t.nodes[k]
		if nd.count > 0 {
			nd.mx /= float64(nd.count)
			nd.my /= float64(nd.count)
		}
	}
}

func quadrant(nd *qNode, x, y float64) int {
	q := 0
	if x >= nd.cx {
		q |= 1
	}
	if y >= nd.cy {
		q |= 2
	}
	return q
}

func (t *quadTree) newChild(parent int32, q int) int32 {
	p := &t.nodes[parent]
	h := p.half / 2
	cx, cy := p.cx-h, p.cy-h
	if q&1 != 0 {
		cx = p.cx + h
	}
	if q&2 != 0 {
		cy = p.cy + h
	}
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, qNode{cx: cx, cy: cy, half: h, point: -1, child: [4]int32{-1, -1, -1, -1}})
	t.nodes[parent].child[q] = id
	return id
}

func (t *quadTree) insert(y []float64, i int32) {
	px, py := y[2*i], y[2*i+1]
	cur := int32(0)
	for depth := 0; ; depth++ {
		nd := &t.nodes[cur]
		isLeaf := nd.child == [4]int32{-1, -1, -1, -1}
		if isLeaf && nd.count == 0 {
			nd.point = i
			nd.count = 1
			nd.mx, nd.my = px, py
			return
		}
		if isLeaf && (depth >= maxQuadDepth || (y[2*nd.point] == px && y[2*nd.point+1] == py)) {
			// Coincident points (or too deep): keep them together in this leaf.
			nd.count++
			nd.mx += px
			nd.my += py
			return
		}
		if isLeaf {
			// Split: push the resident point(s) one level down.
			old := nd.point
			oc, omx, omy := nd.count, nd.mx, nd.my
			nd.point = -1
			q := quadrant(nd, y[2*old], y[2*old+1])
			c := t.newChild(cur, q)
			cn := &t.nodes[c]
			cn.point, cn.count, cn.mx, cn.my = old, oc, omx, omy
			nd = &t.nodes[cur]
		}
		nd.count++
		nd.mx += px
		nd.my += py
		q := quadrant(nd, px, py)
		next := nd.child[q]
		if next < 0 {
			next = t.newChild(cur, q)
		}
		cur = next
	}
}

// repulse returns Σ_j w_ij² (y_i − y_j) and Σ_{j≠i} w_ij for the point (x, y)
// with index self, summarising cells by the Barnes-Hut criterion
// side² < θ²·dist².
func (t *quadTree) repulse(x, y float64, self int32, th2 float64, stack []int32) (r0, r1, z float64, _ []int32) {
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &t.nodes[id]
		if nd.count == 0 {
			continue
		}
		d0, d1 := x-nd.mx, y-nd.my
		d2 := d0*d0 + d1*d1
		leaf := nd.point >= 0
		side := 2 * nd.half
		if leaf || side*side < th2*d2 {
			m := float64(nd.count)
			if leaf && d2 == 0 {
				// Coincident points exert no force and add w = 1 each to Z. A
				// query in the tree (self ≥ 0) shares the leaf of the points
				// coincident with it, so it is one of them.
				if self >= 0 {
					m--
				}
				z += m
				continue
			}
			w := 1 / (1 + d2)
			mw := m * w
			z += mw
			mw *= w
			r0 += mw * d0
			r1 += mw * d1
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
