package tsne

import (
	"context"
	"math"
	"slices"
)

// calibrate sets p_j ∝ exp(−β·(d_j − min d)) for the squared distances d and
// finds β ≥ 0 by bisection so that the Shannon entropy H = −Σ p_j ln p_j equals
// ln(perplexity) (van der Maaten & Hinton 2008, Eq. 1 and the definition of
// perplexity below it, with natural logarithms). p sums to 1. It returns β.
func calibrate(d, p []float64, perplexity float64) float64 {
	target := math.Log(perplexity)
	dmin := math.Inf(1)
	for _, v := range d {
		dmin = min(dmin, v)
	}
	beta, lo, hi := 1.0, 0.0, math.Inf(1)
	const tol = 1e-5
	for it := 0; it < 200; it++ {
		sum, dsum := 0.0, 0.0
		for j, v := range d {
			e := math.Exp(-beta * (v - dmin))
			p[j] = e
			sum += e
			dsum += e * (v - dmin)
		}
		// H = ln Σe + β Σ e·d' / Σe, with d' = d − min d.
		h := math.Log(sum) + beta*dsum/sum
		for j := range p {
			p[j] /= sum
		}
		diff := h - target
		if math.Abs(diff) < tol {
			break
		}
		if diff > 0 { // entropy too high: sharpen
			lo = beta
			if math.IsInf(hi, 1) {
				beta *= 2
			} else {
				beta = (beta + hi) / 2
			}
		} else {
			hi = beta
			beta = (beta + lo) / 2
		}
	}
	return beta
}

// sqDist returns ‖a−b‖² (summed exactly as sqDistBound does).
func sqDist(a, b []float64) float64 {
	s, _ := sqDistBound(a, b, math.Inf(1))
	return s
}

// sqDistBound returns ‖a−b‖² and true, or false as soon as a partial sum
// exceeds bound (so the distance cannot be below it).
func sqDistBound(a, b []float64, bound float64) (float64, bool) {
	b = b[:len(a)]
	var s float64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		d0 := a[i] - b[i]
		d1 := a[i+1] - b[i+1]
		d2 := a[i+2] - b[i+2]
		d3 := a[i+3] - b[i+3]
		d4 := a[i+4] - b[i+4]
		d5 := a[i+5] - b[i+5]
		d6 := a[i+6] - b[i+6]
		d7 := a[i+7] - b[i+7]
		s += ((d0*d0 + d1*d1) + (d2*d2 + d3*d3)) + ((d4*d4 + d5*d5) + (d6*d6 + d7*d7))
		if s > bound {
			return s, false
		}
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s += d * d
	}
	return s, s <= bound
}

// exactP returns the dense symmetric joint probabilities p_ij = (p_{j|i} +
// p_{i|j}) / 2n, row-major n×n with zero diagonal.
func exactP(ctx context.Context, x []float64, n, d int, perplexity float64, workers int) ([]float64, error) {
	P := make([]float64, n*n)
	forRange(n, workers, func(_, lo, hi int) {
		dist := make([]float64, n-1)
		p := make([]float64, n-1)
		for i := lo; i < hi; i++ {
			if ctx.Err() != nil {
				return
			}
			xi := x[i*d : (i+1)*d]
			k := 0
			for j := 0; j < n; j++ {
				if j != i {
					dist[k] = sqDist(xi, x[j*d:(j+1)*d])
					k++
				}
			}
			calibrate(dist, p, perplexity)
			row := P[i*n : (i+1)*n]
			k = 0
			for j := 0; j < n; j++ {
				if j != i {
					row[j] = p[k]
					k++
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inv := 1 / (2 * float64(n))
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := (P[i*n+j] + P[j*n+i]) * inv
			P[i*n+j], P[j*n+i] = v, v
		}
	}
	return P, nil
}

// csr is a sparse n×n matrix in compressed sparse row form. Values are
// stored in single precision: P's entries need no more than 7 digits, and at
// a million points this saves half a gigabyte and a third of the memory
// traffic of every attractive-force pass.
type csr struct {
	ptr []int
	col []int32
	val []float32
}

// numNeighbours is the number of nearest neighbours of the sparse methods:
// ⌊3·perplexity⌋, at least 1 and at most n−1.
func numNeighbours(perplexity float64, n int) int {
	return max(1, min(n-1, int(3*perplexity)))
}

// exactKNN returns the k exact nearest neighbours of every point of the tree
// (n×k, nearest first, ties by index) and their squared distances.
func exactKNN(ctx context.Context, tree *vpTree, n, k, workers int) ([]int32, []float64, error) {
	nbr := make([]int32, n*k)
	dist := make([]float64, n*k)
	forRange(n, workers, func(_, lo, hi int) {
		s := tree.newSearcher(k)
		// Queries in tree order: consecutive queries are near each other.
		for _, i32 := range tree.idx[lo:hi] {
			i := int(i32)
			if ctx.Err() != nil {
				return
			}
			dd := dist[i*k : (i+1)*k]
			s.search(tree.point(i), int32(i), nbr[i*k:(i+1)*k], dd)
			for j := range dd {
				dd[j] *= dd[j]
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return nbr, dist, nil
}

// sparseP returns the symmetrised sparse P of the accelerated methods from
// the k neighbours of every point (nbr, n×k) and their squared distances:
// p_{j|i} calibrated over the k neighbours of i, then p_ij = (p_{j|i} +
// p_{i|j}) / 2n (van der Maaten 2014, Sec. 4.1). dist is overwritten with
// p_{j|i} and nbr is reordered.
func sparseP(ctx context.Context, nbr []int32, dist []float64, n, k int, perplexity float64, workers int) (*csr, error) {
	cond := dist
	forRange(n, workers, func(_, lo, hi int) {
		p := make([]float64, k)
		for i := lo; i < hi; i++ {
			if ctx.Err() != nil {
				return
			}
			calibrate(dist[i*k:(i+1)*k], p, perplexity)
			copy(cond[i*k:(i+1)*k], p)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return symmetrise(nbr, cond, n, k, workers), nil
}

// symmetrise returns (C + Cᵀ)/2n for the conditional matrix C given as k
// neighbours per row (nbr, n×k, distinct within a row, none equal to the
// row) and their values cond. Columns within a row are sorted. nbr and cond
// are reordered (each row by column). Memory beyond the result: one byte per
// entry of C.
func symmetrise(nbr []int32, cond []float64, n, k, workers int) *csr {
	// Sort every row by column.
	forRange(n, workers, func(_, lo, hi int) {
		type pair struct {
			j int32
			v float64
		}
		row := make([]pair, k)
		for i := lo; i < hi; i++ {
			for t := range row {
				row[t] = pair{nbr[i*k+t], cond[i*k+t]}
			}
			slices.SortFunc(row, func(a, b pair) int { return int(a.j - b.j) })
			for t, p := range row {
				nbr[i*k+t], cond[i*k+t] = p.j, p.v
			}
		}
	})
	// find returns the position of j in row i, or −1.
	find := func(i int, j int32) int {
		row := nbr[i*k : (i+1)*k]
		if t, ok := slices.BinarySearch(row, j); ok {
			return i*k + t
		}
		return -1
	}
	// mutual[t]: the edge i→j at t is matched by j→i.
	mutual := make([]bool, n*k)
	forRange(n, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			for t := i * k; t < (i+1)*k; t++ {
				mutual[t] = find(int(nbr[t]), int32(i)) >= 0
			}
		}
	})
	// Row i holds its k own neighbours and every j with i in N(j), j ∉ N(i).
	ptr := make([]int, n+1)
	for t, j := range nbr {
		if !mutual[t] {
			ptr[j+1]++
		}
	}
	for i := 0; i < n; i++ {
		ptr[i+1] += ptr[i] + k
	}
	col := make([]int32, ptr[n])
	val := make([]float32, ptr[n])
	inv := 1 / (2 * float64(n))
	forRange(n, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			o := ptr[i]
			for t := i * k; t < (i+1)*k; t++ {
				col[o] = nbr[t]
				v := cond[t]
				if mutual[t] {
					v += cond[find(int(nbr[t]), int32(i))]
				}
				val[o] = float32(v * inv)
				o++
			}
		}
	})
	// Reverse-only entries, appended in increasing row order.
	fill := make([]int, n)
	for i := range fill {
		fill[i] = ptr[i] + k
	}
	for i := 0; i < n; i++ {
		for t := i * k; t < (i+1)*k; t++ {
			if !mutual[t] {
				j := nbr[t]
				col[fill[j]] = int32(i)
				val[fill[j]] = float32(cond[t] * inv)
				fill[j]++
			}
		}
	}
	// Merge each row's two sorted runs.
	forRange(n, workers, func(_, lo, hi int) {
		var bc []int32
		var bv []float32
		for i := lo; i < hi; i++ {
			a, mid, end := ptr[i], ptr[i]+k, ptr[i+1]
			if mid == end {
				continue
			}
			bc, bv = append(bc[:0], col[a:end]...), append(bv[:0], val[a:end]...)
			x, y, o := 0, k, a
			for x < k || y < end-a {
				if y >= end-a || (x < k && bc[x] < bc[y]) {
					col[o], val[o] = bc[x], bv[x]
					x++
				} else {
					col[o], val[o] = bc[y], bv[y]
					y++
				}
				o++
			}
		}
	})
	return &csr{ptr: ptr, col: col, val: val}
}

// sortPairs is an insertion sort (rows are short).
func sortPairs[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && less(v, s[j-1]) {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}
