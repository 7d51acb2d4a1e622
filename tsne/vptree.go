package tsne

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// vpTree is a vantage-point tree (Yianilos 1993) over the rows of a flat n×d
// matrix, for exact k-nearest-neighbour queries in Euclidean distance.
type vpTree struct {
	data  []float64
	d     int
	idx   []int32 // permutation of the points; leaves own contiguous ranges
	nodes []vpNode
}

// vpNode is an inner node (vantage point idx, children in/out split at
// radius) or a leaf (idx[lo:hi]).
type vpNode struct {
	vp      int32   // vantage point, -1 for a leaf
	radius  float64 // points of in are within radius of vp, points of out at or beyond
	in, out int32   // child nodes, -1 when empty
	lo, hi  int32   // leaf range in idx
}

const vpLeafSize = 32

// newVPTree builds the tree over the n×d points of data. It returns ctx's
// error if ctx is cancelled during the build (checked at every inner node).
func newVPTree(ctx context.Context, data []float64, n, d int, seed uint64) (*vpTree, error) {
	t := &vpTree{data: data, d: d, idx: make([]int32, n)}
	for i := range t.idx {
		t.idx[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x7670747265653031))
	dist := make([]float64, n)
	t.build(ctx, 0, n, rng, dist)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *vpTree) point(i int) []float64 { return t.data[i*t.d : (i+1)*t.d] }

// build makes the subtree over idx[lo:hi] and returns its node index.
func (t *vpTree) build(ctx context.Context, lo, hi int, rng *rand.Rand, dist []float64) int32 {
	if lo >= hi || ctx.Err() != nil {
		return -1
	}
	id := int32(len(t.nodes))
	if hi-lo <= vpLeafSize {
		t.nodes = append(t.nodes, vpNode{vp: -1, in: -1, out: -1, lo: int32(lo), hi: int32(hi)})
		return id
	}
	// Move a random vantage point to lo.
	r := lo + rng.IntN(hi-lo)
	t.idx[lo], t.idx[r] = t.idx[r], t.idx[lo]
	vp := t.idx[lo]
	pv := t.point(int(vp))
	rest := t.idx[lo+1 : hi]
	type item struct {
		d float64
		i int32
	}
	items := make([]item, len(rest))
	for k, j := range rest {
		items[k] = item{math.Sqrt(sqDist(pv, t.point(int(j)))), j}
	}
	slices.SortFunc(items, func(a, b item) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return int(a.i) - int(b.i)
	})
	for k, it := range items {
		rest[k] = it.i
	}
	mid := len(items) / 2
	radius := items[mid].d
	t.nodes = append(t.nodes, vpNode{vp: vp, radius: radius})
	// in: items[:mid] (distance ≤ radius), out: items[mid:] (distance ≥ radius).
	in := t.build(ctx, lo+1, lo+1+mid, rng, dist)
	out := t.build(ctx, lo+1+mid, hi, rng, dist)
	t.nodes[id].in, t.nodes[id].out = in, out
	return id
}

// vpSearcher holds the workspace of one goroutine's queries.
type vpSearcher struct {
	t    *vpTree
	k    int
	heap []nbrItem // max-heap on (dist, idx)
	q    []float64
	self int32
}

type nbrItem struct {
	d float64
	i int32
}

// worse reports whether a is farther than b, ties broken by larger index.
func worse(a, b nbrItem) bool { return a.d > b.d || (a.d == b.d && a.i > b.i) }

func (t *vpTree) newSearcher(k int) *vpSearcher {
	return &vpSearcher{t: t, k: k, heap: make([]nbrItem, 0, k)}
}

// search writes the k nearest points to q, excluding index self (−1 for
// none), sorted by increasing distance (ties by index), to nbr and their
// Euclidean distances to dist. Results are exact and deterministic.
func (s *vpSearcher) search(q []float64, self int32, nbr []int32, dist []float64) {
	s.heap = s.heap[:0]
	s.q = q
	s.self = self
	if len(s.t.nodes) > 0 {
		s.visit(0)
	}
	// Pop in decreasing order.
	for m := len(s.heap) - 1; m >= 0; m-- {
		top := s.heap[0]
		nbr[m], dist[m] = top.i, top.d
		s.heap[0] = s.heap[len(s.heap)-1]
		s.heap = s.heap[:len(s.heap)-1]
		s.down(0)
	}
}

func (s *vpSearcher) tau() float64 {
	if len(s.heap) < s.k {
		return math.Inf(1)
	}
	return s.heap[0].d
}

func (s *vpSearcher) offer(i int32, d float64) {
	if i == s.self {
		return
	}
	it := nbrItem{d, i}
	if len(s.heap) < s.k {
		s.heap = append(s.heap, it)
		s.up(len(s.heap) - 1)
		return
	}
	if worse(s.heap[0], it) {
		s.heap[0] = it
		s.down(0)
	}
}

func (s *vpSearcher) up(j int) {
	h := s.heap
	for j > 0 {
		p := (j - 1) / 2
		if !worse(h[j], h[p]) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (s *vpSearcher) down(j int) {
	h := s.heap
	for {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && worse(h[r], h[l]) {
			m = r
		}
		if !worse(h[m], h[j]) {
			return
		}
		h[j], h[m] = h[m], h[j]
		j = m
	}
}

func (s *vpSearcher) visit(id int32) {
	nd := &s.t.nodes[id]
	if nd.vp < 0 {
		for _, j := range s.t.idx[nd.lo:nd.hi] {
			if j == s.self {
				continue
			}
			// Abandon a distance as soon as it exceeds the current k-th.
			tau := s.tau()
			d2, ok := sqDistBound(s.q, s.t.point(int(j)), tau*tau)
			if ok {
				s.offer(j, math.Sqrt(d2))
			}
		}
		return
	}
	d := math.Sqrt(sqDist(s.q, s.t.point(int(nd.vp))))
	s.offer(nd.vp, d)
	// Inclusive bounds keep ties exact: a point at distance exactly tau may
	// still win on index.
	if d < nd.radius {
		if nd.in >= 0 {
			s.visit(nd.in)
		}
		if nd.out >= 0 && d+s.tau() >= nd.radius {
			s.visit(nd.out)
		}
	} else {
		if nd.out >= 0 {
			s.visit(nd.out)
		}
		if nd.in >= 0 && d-s.tau() <= nd.radius {
			s.visit(nd.in)
		}
	}
}
