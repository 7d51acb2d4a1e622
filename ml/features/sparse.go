package features

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/taglens/taglens/internal/linalg"
	"github.com/taglens/taglens/ml/internal/prefetch"
	"gonum.org/v1/gonum/mat"
)

// An Operator is a linear map known only through its products with dense
// blocks (Dims, MulTo), so that a large sparse matrix (or a product of sparse
// matrices) never has to be formed densely: linalg.Operator, on which the
// randomized SVD (linalg.RandomizedSVD) works.
type Operator = linalg.Operator

// Sparse is a sparse matrix in compressed sparse row (CSR) form: the nonzeros of
// row i are Val[Ptr[i]:Ptr[i+1]] at columns Ind[Ptr[i]:Ptr[i+1]], columns sorted
// increasingly within a row. The fields are exported so that callers can
// serialize or walk the matrix; a Sparse must not be modified once built.
type Sparse struct {
	R, C int
	Ptr  []int
	Ind  []int
	Val  []float64
}

// Dims returns the shape of m.
func (m *Sparse) Dims() (r, c int) { return m.R, m.C }

// NNZ returns the number of stored entries.
func (m *Sparse) NNZ() int { return len(m.Ind) }

// Row returns the column indices and values of row i (views into m).
func (m *Sparse) Row(i int) (ind []int, val []float64) {
	a, b := m.Ptr[i], m.Ptr[i+1]
	return m.Ind[a:b], m.Val[a:b]
}

// At returns m[i][j] by binary search within row i.
func (m *Sparse) At(i, j int) float64 {
	ind, val := m.Row(i)
	if k, ok := slices.BinarySearch(ind, j); ok {
		return val[k]
	}
	return 0
}

// MulTo implements Operator. It costs O(NNZ·k). Large products run on
// GOMAXPROCS goroutines over a fixed partition in which every element of dst
// is computed by one goroutine with the very additions, in the same order, of
// the serial loop (A·x: ranges of rows of dst; Aᵀ·x: ranges of columns of x
// and dst), so the result does not depend on the partition.
func (m *Sparse) MulTo(dst *mat.Dense, trans bool, x *mat.Dense) {
	xr, k := x.Dims()
	dr, dc := dst.Dims()
	in, out := m.C, m.R
	if trans {
		in, out = m.R, m.C
	}
	if xr != in || dr != out || dc != k {
		panic(fmt.Sprintf("features: Sparse.MulTo shape mismatch: A %d×%d trans=%v, x %d×%d, dst %d×%d", m.R, m.C, trans, xr, k, dr, dc))
	}
	dst.Zero()
	m.mulAdd(dst, trans, x)
}

// mulAdd adds m·x (trans: mᵀ·x) to dst, whose shape MulTo checked. Each
// element of dst receives its terms in the order of m's rows, whichever
// goroutine computes it.
func (m *Sparse) mulAdd(dst *mat.Dense, trans bool, x *mat.Dense) {
	_, k := x.Dims()
	parts := 1
	if (m.Ptr[m.R]-m.Ptr[0])*k >= parallelMulAbove {
		parts = runtime.GOMAXPROCS(0)
		if trans {
			parts = min(parts, k)
		} else {
			parts = min(parts, m.R)
		}
	}
	if parts <= 1 {
		m.mulRange(dst, trans, x, 0, m.R, 0, k)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if trans {
				m.mulRange(dst, true, x, 0, m.R, p*k/parts, (p+1)*k/parts)
			} else {
				m.mulRange(dst, false, x, p*m.R/parts, (p+1)*m.R/parts, 0, k)
			}
		}()
	}
	wg.Wait()
}

// parallelMulAbove is the size NNZ·k of a product above which MulTo splits it.
const parallelMulAbove = 1 << 20

// mulAhead is how many nonzeros ahead mulRange prefetches the row they read
// (or, transposed, write).
const mulAhead = 4

// mulRange adds to dst the contributions of the rows r0 ≤ i < r1 of m to the
// columns c0 ≤ c < c1 of the product (see MulTo).
func (m *Sparse) mulRange(dst *mat.Dense, trans bool, x *mat.Dense, r0, r1, c0, c1 int) {
	if c1 <= c0 {
		return
	}
	xd, dd := x.RawMatrix(), dst.RawMatrix()
	axpy := axpyRound // the kernel, read once; nil runs the Go loop
	if !useAxpy {
		axpy = nil
	}
	rowBytes := 8 * (c1 - c0)
	for i := r0; i < r1; i++ {
		ind, val := m.Row(i)
		if !trans {
			di := dd.Data[i*dd.Stride+c0 : i*dd.Stride+c1]
			for p, j := range ind {
				// The rows of x the next nonzeros read, scattered over a
				// matrix larger than the cache, are fetched ahead (a hint:
				// no value changes).
				if p+mulAhead < len(ind) {
					prefetch.Bytes(unsafe.Pointer(&xd.Data[ind[p+mulAhead]*xd.Stride+c0]), rowBytes)
				}
				v := val[p]
				xj := xd.Data[j*xd.Stride+c0 : j*xd.Stride+c1]
				if axpy != nil {
					axpy(di, xj, v)
					continue
				}
				for c := range di {
					di[c] += float64(v * xj[c]) // rounded before the sum, as axpyRound
				}
			}
		} else {
			xi := xd.Data[i*xd.Stride+c0 : i*xd.Stride+c1]
			for p, j := range ind {
				if p+mulAhead < len(ind) { // the rows of dst ahead, as above
					prefetch.Bytes(unsafe.Pointer(&dd.Data[ind[p+mulAhead]*dd.Stride+c0]), rowBytes)
				}
				v := val[p]
				dj := dd.Data[j*dd.Stride+c0 : j*dd.Stride+c1]
				if axpy != nil {
					axpy(dj, xi, v)
					continue
				}
				for c := range dj {
					dj[c] += float64(v * xi[c]) // rounded before the sum, as axpyRound
				}
			}
		}
	}
}

// Dense returns m as a dense matrix (for small matrices and tests).
// It panics if m has no rows or no columns (gonum has no empty Dense).
func (m *Sparse) Dense() *mat.Dense {
	d := mat.NewDense(m.R, m.C, nil)
	for i := 0; i < m.R; i++ {
		ind, val := m.Row(i)
		for p, j := range ind {
			d.Set(i, j, val[p])
		}
	}
	return d
}

// DocTerm returns the |docs|×v document-term matrix Υ whose row d holds weight[τ]
// at every distinct term τ of docs[d] (weight nil means binary 1). With
// weight = idf this is the tf-idf matrix of paper §3.1 (tf is binary). It panics
// if a term is outside [0, v).
func DocTerm(docs [][]int, v int, weight []float64) *Sparse {
	m := &Sparse{R: len(docs), C: v, Ptr: make([]int, len(docs)+1)}
	for d, doc := range docs {
		b := BoW(doc)
		for _, t := range b {
			if t < 0 || t >= v {
				panic(fmt.Sprintf("features: term %d outside vocabulary of %d", t, v))
			}
			m.Ind = append(m.Ind, t)
			if weight == nil {
				m.Val = append(m.Val, 1)
			} else {
				m.Val = append(m.Val, weight[t])
			}
		}
		m.Ptr[d+1] = len(m.Ind)
	}
	return m
}

// Cooccurrence returns the symmetric v×v matrix of document co-occurrence counts
// C_ij = |{δ ∈ docs : τ_i ∈ δ and τ_j ∈ δ}| (the diagonal holds df), scaled as
// T_ij = w_i·w_j·C_ij when w is not nil. With w = idf, T is the aggregation matrix
// of Eq. 2: T_ij = <u(τ_i), u(τ_j)>, because tf is binary and so
// u(τ_i)·u(τ_j) = Σ_δ idf_i·idf_j·[τ_i∈δ][τ_j∈δ].
// It costs O(Σ_δ |δ|² log) time and O(nnz) memory; no dense matrix is formed.
// Repeated terms within a document count once. It panics if a term is outside [0, v).
func Cooccurrence(docs [][]int, v int, w []float64) *Sparse {
	return GramSparse(DocTerm(docs, v, w))
}

// Transpose returns mᵀ in CSR form (columns sorted within rows).
func (m *Sparse) Transpose() *Sparse {
	t := &Sparse{R: m.C, C: m.R, Ptr: make([]int, m.C+1), Ind: make([]int, len(m.Ind)), Val: make([]float64, len(m.Val))}
	for _, j := range m.Ind {
		t.Ptr[j+1]++
	}
	for j := 0; j < m.C; j++ {
		t.Ptr[j+1] += t.Ptr[j]
	}
	next := slices.Clone(t.Ptr[:m.C])
	for i := 0; i < m.R; i++ {
		ind, val := m.Row(i)
		for p, j := range ind {
			t.Ind[next[j]] = i
			t.Val[next[j]] = val[p]
			next[j]++
		}
	}
	return t
}

// GramSparse returns AᵀA (c×c, symmetric) as a sparse matrix, accumulating for
// every column i the products over the rows holding i. It costs
// O(Σ_rows nnz(row)²) time plus a sort per output row, and O(nnz(AᵀA)) memory.
func GramSparse(a *Sparse) *Sparse {
	g, _ := gramSparse(context.Background(), a)
	return g
}

// gramSparse is GramSparse that stops with ctx.Err() when ctx is cancelled,
// checked every gramBlock output rows (one row of a term in documents of
// 1,000 tags is up to 10^6 products per document holding it).
//
// It makes two passes over the rows: the first counts the non-zeros of every
// output row, the second fills arrays of exactly that size. Appending to
// growing slices instead held up to twice the result (the capacity doubling
// and the copy) plus the garbage collector's slack, 3.5 GiB for the 59 M
// non-zeros of pubmed-genes' smoothed count; the first pass costs as much as
// the second's index work, a few seconds there. Both passes run on
// GOMAXPROCS goroutines taking blocks of rows in turn; every row is computed
// by one goroutine with the additions, in the same order, of the serial
// loop, so the result does not depend on the schedule.
func gramSparse(ctx context.Context, a *Sparse) (*Sparse, error) {
	at := a.Transpose()
	g := &Sparse{R: a.C, C: a.C, Ptr: make([]int, a.C+1)}
	// Pass 1: g.Ptr[i+1] = nnz of row i.
	err := gramRows(ctx, a.C, func(lo, hi int, w *gramWork) {
		for i := lo; i < hi; i++ {
			g.Ptr[i+1] = len(w.row(a, at, i, false))
			w.clear()
		}
	})
	if err != nil {
		return nil, err
	}
	for i := 0; i < a.C; i++ {
		g.Ptr[i+1] += g.Ptr[i]
	}
	g.Ind, g.Val = make([]int, g.Ptr[a.C]), make([]float64, g.Ptr[a.C])
	// Pass 2: the values, in column order.
	err = gramRows(ctx, a.C, func(lo, hi int, w *gramWork) {
		for i := lo; i < hi; i++ {
			touched := w.row(a, at, i, true)
			slices.Sort(touched)
			ind, val := g.Ind[g.Ptr[i]:g.Ptr[i+1]], g.Val[g.Ptr[i]:g.Ptr[i+1]]
			for k, j := range touched {
				ind[k], val[k] = j, w.acc[j]
			}
			w.clear()
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// gramBlock is the number of output rows a goroutine of gramRows takes at a
// time, and the period of its context checks.
const gramBlock = 256

// gramWork is one goroutine's scratch space for rows of AᵀA.
type gramWork struct {
	acc     []float64
	mark    []bool
	touched []int
}

// row accumulates row i of AᵀA into w (at = Aᵀ): it returns the columns
// touched, unsorted, with their sums in w.acc when values is true.
func (w *gramWork) row(a, at *Sparse, i int, values bool) []int {
	rows, vi := at.Row(i)
	for p, d := range rows {
		ind, val := a.Row(d)
		for q, j := range ind {
			if !w.mark[j] {
				w.mark[j] = true
				w.touched = append(w.touched, j)
			}
			if values {
				w.acc[j] += vi[p] * val[q]
			}
		}
	}
	return w.touched
}

// clear resets the columns the last row touched.
func (w *gramWork) clear() {
	for _, j := range w.touched {
		w.acc[j], w.mark[j] = 0, false
	}
	w.touched = w.touched[:0]
}

// gramRows calls f on consecutive blocks of the rows [0, n), each with the
// scratch space of the goroutine that runs it, on up to GOMAXPROCS goroutines;
// it returns ctx.Err() when ctx is cancelled (checked before every block).
func gramRows(ctx context.Context, n int, f func(lo, hi int, w *gramWork)) error {
	var next atomic.Int64
	parts := min(runtime.GOMAXPROCS(0), (n+gramBlock-1)/gramBlock)
	var wg sync.WaitGroup
	for range max(parts, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &gramWork{acc: make([]float64, n), mark: make([]bool, n)}
			for ctx.Err() == nil {
				lo := int(next.Add(1)-1) * gramBlock
				if lo >= n {
					return
				}
				f(lo, min(lo+gramBlock, n), w)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Gram is the operator AᵀA of a sparse matrix A (r×c), applied as Aᵀ(A·x)
// without forming AᵀA. With A = the tf-idf document-term matrix, AᵀA is the
// aggregation matrix T of Eq. 2.
type Gram struct {
	A *Sparse
}

// Dims returns c×c.
func (g Gram) Dims() (r, c int) { return g.A.C, g.A.C }

// MulTo implements Operator (AᵀA is symmetric, so trans is irrelevant). It
// takes A's rows by blocks of at most gramBlockElems/k, dst += A_bᵀ(A_b·x),
// so that the intermediate A·x is never whole (pubmed-genes' 503,172
// documents × 210 columns: 845 MB for each fit of InfoTheo's grid, two at a
// time); the blocks are added in row order, so every element of dst sums the
// same terms in the same order as Aᵀ(A·x) in one piece: the same bits.
func (g Gram) MulTo(dst *mat.Dense, _ bool, x *mat.Dense) {
	r, c := g.A.Dims()
	xr, k := x.Dims()
	dr, dc := dst.Dims()
	if xr != c || dr != c || dc != k {
		panic(fmt.Sprintf("features: Gram.MulTo shape mismatch: A %d×%d, x %d×%d, dst %d×%d", r, c, xr, k, dr, dc))
	}
	dst.Zero()
	if r == 0 {
		return
	}
	rows := min(r, max(1, gramBlockElems/max(k, 1)))
	tmp := mat.NewDense(rows, k, nil)
	for r0 := 0; r0 < r; r0 += rows {
		r1 := min(r0+rows, r)
		blk := &Sparse{R: r1 - r0, C: c, Ptr: g.A.Ptr[r0 : r1+1], Ind: g.A.Ind, Val: g.A.Val}
		t := tmp.Slice(0, r1-r0, 0, k).(*mat.Dense)
		t.Zero()
		blk.mulAdd(t, false, x)
		blk.mulAdd(dst, true, t)
	}
}

// gramBlockElems is the size of Gram.MulTo's intermediate block, in float64
// elements (16 MiB); a variable for the tests.
var gramBlockElems = 1 << 21

// Centered is the column-centred operator X = A − 1·μᵀ, where μ_j is the mean of
// column j of A over its r rows (rows = observations). PCA of the rows of A is
// the SVD of X. Mean must have length c; use ColMeans to compute it.
type Centered struct {
	A    Operator
	Mean []float64
}

// Dims returns the shape of A.
func (o Centered) Dims() (r, c int) { return o.A.Dims() }

// MulTo implements Operator: X·x = A·x − 1·(μᵀx); Xᵀ·y = Aᵀ·y − μ·(1ᵀy).
func (o Centered) MulTo(dst *mat.Dense, trans bool, x *mat.Dense) {
	o.A.MulTo(dst, trans, x)
	xr, k := x.Dims()
	dr, _ := dst.Dims()
	if !trans {
		// row vector μᵀx (1×k), subtracted from every row of dst.
		mx := make([]float64, k)
		for i := 0; i < xr; i++ {
			mi := o.Mean[i]
			if mi == 0 {
				continue
			}
			for c := 0; c < k; c++ {
				mx[c] += mi * x.At(i, c)
			}
		}
		for i := 0; i < dr; i++ {
			row := dst.RawRowView(i)
			for c := range row {
				row[c] -= mx[c]
			}
		}
		return
	}
	// column sums 1ᵀy (1×k); dst[j] -= μ_j·s.
	s := make([]float64, k)
	for i := 0; i < xr; i++ {
		row := x.RawRowView(i)
		for c := range row {
			s[c] += row[c]
		}
	}
	for j := 0; j < dr; j++ {
		mj := o.Mean[j]
		if mj == 0 {
			continue
		}
		row := dst.RawRowView(j)
		for c := range row {
			row[c] -= mj * s[c]
		}
	}
}

// ColMeans returns the column means of a sparse matrix (rows = observations).
func ColMeans(a *Sparse) []float64 {
	mu := make([]float64, a.C)
	if a.R == 0 {
		return mu
	}
	for p, j := range a.Ind {
		mu[j] += a.Val[p]
	}
	for j := range mu {
		mu[j] /= float64(a.R)
	}
	return mu
}
