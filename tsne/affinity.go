package tsne

import (
	"context"
	"math"
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

// csr is a sparse n×n matrix in compressed sparse row form.
type csr struct {
	ptr []int
	col []int32
	val []float64
}

// numNeighbours is the number of nearest neighbours of the sparse methods:
// ⌊3·perplexity⌋, at least 1 and at most n−1.
func numNeighbours(perplexity float64, n int) int {
	return max(1, min(n-1, int(3*perplexity)))
}

// sparseP returns the symmetrised sparse P of the accelerated methods:
// p_{j|i} calibrated over the k = ⌊3·perplexity⌋ exact nearest neighbours of i,
// then p_ij = (p_{j|i} + p_{i|j}) / 2n (van der Maaten 2014, Sec. 4.1).
func sparseP(ctx context.Context, tree *vpTree, n int, perplexity float64, workers int) (*csr, error) {
	k := numNeighbours(perplexity, n)
	nbr := make([]int32, n*k)
	cond := make([]float64, n*k)
	forRange(n, workers, func(_, lo, hi int) {
		s := tree.newSearcher(k)
		dist := make([]float64, k)
		// Queries in tree order: consecutive queries are near each other.
		for _, i32 := range tree.idx[lo:hi] {
			i := int(i32)
			if ctx.Err() != nil {
				return
			}
			s.search(tree.point(i), int32(i), nbr[i*k:(i+1)*k], dist)
			for j := range dist {
				dist[j] *= dist[j]
			}
			calibrate(dist, cond[i*k:(i+1)*k], perplexity)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return symmetrise(nbr, cond, n, k), nil
}

// symmetrise returns (C + Cᵀ)/2n for the conditional matrix C given as k
// neighbours per row. Columns within a row are sorted.
func symmetrise(nbr []int32, cond []float64, n, k int) *csr {
	// Count entries per row of C + Cᵀ: row i holds its own neighbours and every
	// j that has i as a neighbour but is not a neighbour of i.
	// First build the transpose counts.
	tcount := make([]int, n+1)
	for _, j := range nbr {
		tcount[j+1]++
	}
	for i := 0; i < n; i++ {
		tcount[i+1] += tcount[i]
	}
	tcol := make([]int32, n*k)
	tval := make([]float64, n*k)
	fill := append([]int(nil), tcount[:n]...)
	for i := 0; i < n; i++ { // rows in order: transposed rows come out sorted
		for t := i * k; t < (i+1)*k; t++ {
			j := nbr[t]
			tcol[fill[j]] = int32(i)
			tval[fill[j]] = cond[t]
			fill[j]++
		}
	}
	// Merge row i of C (sorted copy) with row i of Cᵀ.
	ptr := make([]int, n+1)
	col := make([]int32, 0, 2*n*k)
	val := make([]float64, 0, 2*n*k)
	inv := 1 / (2 * float64(n))
	type pair struct {
		j int32
		v float64
	}
	row := make([]pair, k)
	for i := 0; i < n; i++ {
		for t := 0; t < k; t++ {
			row[t] = pair{nbr[i*k+t], cond[i*k+t]}
		}
		sortPairs(row, func(a, b pair) bool { return a.j < b.j })
		a, b := 0, tcount[i]
		bEnd := tcount[i+1]
		for a < k || b < bEnd {
			switch {
			case b >= bEnd || (a < k && row[a].j < tcol[b]):
				col = append(col, row[a].j)
				val = append(val, row[a].v*inv)
				a++
			case a >= k || tcol[b] < row[a].j:
				col = append(col, tcol[b])
				val = append(val, tval[b]*inv)
				b++
			default:
				col = append(col, row[a].j)
				val = append(val, (row[a].v+tval[b])*inv)
				a++
				b++
			}
		}
		ptr[i+1] = len(col)
	}
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
