package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/internal/defaults"
)

// TermVectors is a non-contextual semantic space: one vector per vocabulary term,
// compared by the cosine distance (paper §6.2.5: "the cosine metric outperformed
// Euclidian for all models")
//
//	e(τ_i, τ_j) = 1 − <v_i, v_j> / (‖v_i‖·‖v_j‖),
//
// in [0, 2]. A term with a zero vector (no information) is at distance 1 from
// every term, itself included. The rows are stored normalized. TermVectors is
// immutable and safe for concurrent use.
type TermVectors struct {
	// V terms of dimension D; Unit is V×D row-major, every nonzero row of unit length.
	V, D int
	Unit []float64

	// rows caches distance rows already computed (see cacheable); built on
	// first use. Unit must not change once distances have been asked for.
	rowsOnce sync.Once
	rows     []atomic.Pointer[[]float64]
}

// NewTermVectors returns the cosine space of the V×D row-major vectors vec
// (copied). It panics if len(vec) != v·d or v, d < 1.
func NewTermVectors(v, d int, vec []float64) *TermVectors {
	if v < 1 || d < 1 || len(vec) != v*d {
		panic(fmt.Sprintf("baselines: NewTermVectors: %d×%d with %d values", v, d, len(vec)))
	}
	u := make([]float64, len(vec))
	copy(u, vec)
	for i := 0; i < v; i++ {
		row := u[i*d : (i+1)*d]
		var s float64
		for _, x := range row {
			s += x * x
		}
		if s > 0 && !math.IsInf(s, 0) && !math.IsNaN(s) {
			inv := 1 / math.Sqrt(s)
			for j := range row {
				row[j] *= inv
			}
		} else {
			for j := range row {
				row[j] = 0
			}
		}
	}
	return &TermVectors{V: v, D: d, Unit: u}
}

// Row returns the unit vector of term i (a view).
func (t *TermVectors) Row(i int) []float64 { return t.Unit[i*t.D : (i+1)*t.D] }

// CosineDistancesTo fills dst (len(queries)·V) with dst[i·V+j] = 1 − cos(q_i, τ_j).
// It panics on a length mismatch or a query outside [0, V).
//
// A query's row of distances does not depend on the other queries of the call
// (see cacheable), so rows are computed once per term and kept: an evaluation
// asks for the same terms' rows in document after document (the extended
// protocol over a test set, every grid point's tuning evaluation), and then
// only copies them. Every value is bit for bit the one of the direct
// computation, cosineDirect, for the same call.
func (t *TermVectors) CosineDistancesTo(dst []float64, queries []int) {
	if len(dst) != len(queries)*t.V {
		panic(fmt.Sprintf("baselines: CosineDistancesTo: len(dst) = %d, want %d", len(dst), len(queries)*t.V))
	}
	rows, ok := t.keptRows(queries)
	if !ok {
		t.cosineDirect(dst, queries, t.useProduct(len(queries)))
		return
	}
	for i, row := range rows {
		copy(dst[i*t.V:(i+1)*t.V], row)
	}
}

// keptRows returns the kept rows of the queries (read-only; computing the
// missing ones), or ok = false when a call with these queries is not
// cacheable. It panics on a query outside [0, V).
func (t *TermVectors) keptRows(queries []int) (rows [][]float64, ok bool) {
	for _, q := range queries {
		if q < 0 || q >= t.V {
			panic(fmt.Sprintf("baselines: CosineDistancesTo: query %d outside [0, %d)", q, t.V))
		}
	}
	if !t.cacheable(len(queries)) {
		return nil, false
	}
	t.rowsOnce.Do(func() { t.rows = make([]atomic.Pointer[[]float64], t.V) })
	var missing []int
	for _, q := range queries {
		if t.rows[q].Load() == nil && !slices.Contains(missing, q) {
			missing = append(missing, q)
		}
	}
	t.keepRows(missing, t.useProduct(len(queries)))
	rows = make([][]float64, len(queries))
	for i, q := range queries {
		rows[i] = *t.rows[q].Load()
	}
	return rows, true
}

// keepRows computes the rows of the terms missing (distinct, none kept yet)
// in one call of the direct computation on the given path (with the matrix
// product, one pass over the V×D matrix for all of them) and keeps them.
func (t *TermVectors) keepRows(missing []int, product bool) {
	if len(missing) == 0 {
		return
	}
	buf := make([]float64, len(missing)*t.V)
	t.cosineDirect(buf, missing, product)
	for i, q := range missing {
		row := buf[i*t.V : (i+1)*t.V : (i+1)*t.V]
		t.rows[q].CompareAndSwap(nil, &row) // a concurrent caller stored the same values
	}
}

// PrepareQueries implements eval.QueryPreparer: it computes at once the kept
// rows of the terms that calls with several queries will ask for, in one
// matrix product whose blocks keep the term and query rows in the cache,
// instead of document by document, each streaming the V×D matrix from memory.
// The values are those CosineDistancesTo would compute.
func (t *TermVectors) PrepareQueries(terms []int) {
	if !t.cacheable(2) {
		return
	}
	t.rowsOnce.Do(func() { t.rows = make([]atomic.Pointer[[]float64], t.V) })
	var missing []int
	seen := make([]bool, t.V)
	for _, q := range terms {
		if q >= 0 && q < t.V && !seen[q] && t.rows[q].Load() == nil {
			seen[q] = true
			missing = append(missing, q)
		}
	}
	t.keepRows(missing, t.useProduct(2))
}

// cacheable reports whether the distance rows of a call with n queries are the
// ones kept for every call: those of the matrix product when V·D ≥ gemmAbove
// and n ≥ 2, or of the matrix-vector products when V·D < gemmAbove. The gonum
// product C = −Q·Unitᵀ computes every element alone as the sum over the
// 64-wide blocks of D of −<q_b, u_b> (dgemmParallel, taken when the product
// has at least 4 blocks of 64×64, so whatever the number of queries when
// V > 192), so an element does not depend on Q's other rows; a matrix-vector
// product's element is −<q, u> over all of D, which may round differently. A
// single query of a large matrix (an incomplete context reduced to one term)
// is therefore computed directly, as are large matrices of at most 192 terms
// (TestCosineDistancesCached) and vocabularies whose V×V distances would
// exceed maxCachedDistances.
func (t *TermVectors) cacheable(n int) bool {
	if t.V*t.V > maxCachedDistances {
		return false
	}
	if !t.useProduct(n) {
		return t.V*t.D < gemmAbove
	}
	return t.V > 3*64
}

// maxCachedDistances bounds the distance rows a TermVectors keeps: V·V values
// (2 GiB; 392 MB at whats-cooking's 7,000 terms).
const maxCachedDistances = 1 << 28

// useProduct reports whether a call with n queries computes its distances as
// one matrix product (else as n matrix-vector products).
func (t *TermVectors) useProduct(n int) bool { return t.V*t.D >= gemmAbove && n >= 2 }

// cosineDirect is CosineDistancesTo without the kept rows, computed as one
// matrix product if product, else as matrix-vector products.
func (t *TermVectors) cosineDirect(dst []float64, queries []int, product bool) {
	a := blas64.General{Rows: t.V, Cols: t.D, Stride: t.D, Data: t.Unit}
	if !product {
		for i, q := range queries {
			row := dst[i*t.V : (i+1)*t.V]
			blas64.Gemv(blas.NoTrans, -1, a, blas64.Vector{N: t.D, Inc: 1, Data: t.Row(q)}, 0, blas64.Vector{N: t.V, Inc: 1, Data: row})
		}
	} else if useLanes && gemmParallel(len(queries), t.V) {
		t.cosineProduct(dst, queries)
		return
	} else {
		// One matrix product for all queries, −Q·Unitᵀ: the V×D matrix, too
		// large for the cache, is streamed from memory once per call instead of
		// once per query.
		q := make([]float64, len(queries)*t.D)
		for i, qi := range queries {
			copy(q[i*t.D:(i+1)*t.D], t.Row(qi))
		}
		qm := blas64.General{Rows: len(queries), Cols: t.D, Stride: t.D, Data: q}
		blas64.Gemm(blas.NoTrans, blas.Trans, -1, qm, a, 0, blas64.General{Rows: len(queries), Cols: t.V, Stride: t.V, Data: dst})
	}
	for j := range dst {
		dst[j] += 1
	}
}

// gemmParallel reports whether gonum's product of an m×D and a D×n matrix takes
// its blocked path (dgemmParallel: at least 4 blocks of 64×64 in C), where
// element (i, j) is the sum, in order, of −<a_b, b_b> over the 64-wide blocks
// b of D, each dot product gonum's DotUnitary.
func gemmParallel(m, n int) bool { return ((m+63)/64)*((n+63)/64) >= 4 }

// cosineProduct is the matrix product path of cosineDirect, with the very
// rounding of gonum's product where gemmParallel holds (see lanes2x4 and
// dotLanes), in fewer instructions: each term row is loaded once for two
// queries, each query chunk once for four terms, and the four partial sums of a
// dot product sit in one AVX2 register. The terms are cut into fixed chunks
// shared by GOMAXPROCS goroutines; every element is computed alone, so the
// result does not depend on the split.
func (t *TermVectors) cosineProduct(dst []float64, queries []int) {
	const chunk = 256
	chunks := (t.V + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 || len(queries)*t.V*t.D < 1<<18 {
		t.productChunk(dst, queries, 0, t.V)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := w; c < chunks; c += workers {
					t.productChunk(dst, queries, c*chunk, min(t.V, (c+1)*chunk))
				}
			}()
		}
		wg.Wait()
	}
	for j := range dst {
		dst[j] += 1
	}
}

// productChunk sets dst[i·V+j] = −<u_{q_i}, u_j> for the terms j0 ≤ j < j1,
// summed as gonum's blocked product does: over the 64-wide blocks of D in
// order, c += −1·dot(block), each dot with DotUnitary's four partial sums.
func (t *TermVectors) productChunk(dst []float64, queries []int, j0, j1 int) {
	var lanes [32]float64
	// Terms outside, queries inside: four term rows stay in the L1 cache while
	// every query of a block passes over them.
	// Blocks of 32 queries (64 KB at 256 dimensions) stay in the cache while
	// the chunk's terms pass over them.
	for qb := 0; qb < len(queries); qb += 32 {
		t.productBlock(dst, queries, qb, min(len(queries), qb+32), j0, j1, &lanes)
	}
}

// productBlock is productChunk for the queries qb ≤ i < qe.
func (t *TermVectors) productBlock(dst []float64, queries []int, qb, qe, j0, j1 int, lanes *[32]float64) {
	v, d := t.V, t.D
	j := j0
	for ; j+4 <= j1; j += 4 {
		for qi := qb; qi < qe; qi += 2 {
			two := qi+1 < qe
			a := [2][]float64{t.Row(queries[qi]), t.Row(queries[qi])}
			if two {
				a[1] = t.Row(queries[qi+1])
			}
			var c [8]float64
			for kb := 0; kb < d; kb += 64 {
				n := min(64, d-kb)
				n4 := n &^ 3
				if n4 > 0 {
					lanes2x4(&a[0][kb], &a[1][kb], &t.Unit[j*d+kb], 8*d, n4, lanes)
				} else {
					*lanes = [32]float64{}
				}
				for e := range c {
					x, y := a[e/4][kb:kb+n], t.Unit[(j+e%4)*d+kb:(j+e%4)*d+kb+n]
					l := lanes[4*e : 4*e+4]
					s0 := l[0]
					for i := n4; i < n; i++ {
						s0 += float64(x[i] * y[i])
					}
					c[e] += float64(-1 * ((s0 + l[2]) + (l[1] + l[3])))
				}
			}
			copy(dst[qi*v+j:qi*v+j+4], c[:4])
			if two {
				copy(dst[(qi+1)*v+j:(qi+1)*v+j+4], c[4:])
			}
		}
	}
	for ; j < j1; j++ {
		for i := qb; i < qe; i++ {
			q := queries[i]
			var c float64
			for kb := 0; kb < d; kb += 64 {
				n := min(64, d-kb)
				c += float64(-1 * dotLanes(t.Row(q)[kb:kb+n], t.Unit[j*d+kb:j*d+kb+n]))
			}
			dst[i*v+j] = c
		}
	}
}

// dotLanes is gonum's DotUnitary on amd64 written in Go: four partial sums
// s_l of the products x[i]·y[i], i ≡ l mod 4, over the whole groups of four,
// the remaining products added to s_0, and (s_0 + s_2) + (s_1 + s_3). The
// conversions keep the compiler from fusing a multiply and an add.
func dotLanes(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	n4 := len(x) &^ 3
	for i := 0; i < n4; i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for i := n4; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s2) + (s1 + s3)
}

// gemmAbove is the size V·D of the term matrix above which CosineDistancesTo
// ranks all queries with one matrix product (BenchmarkCosineDistances: at
// 7,793×256 one product for 9 queries took 17.6 ms against 23.2 ms for nine
// matrix-vector products; at 161×119, where the matrix stays in cache, 86 µs
// against 47 µs).
const gemmAbove = 1 << 17

// vectorModel adapts TermVectors to eval.Model for a non-contextual baseline.
type vectorModel struct {
	*TermVectors
	name string
}

func (m vectorModel) Name() string     { return m.name }
func (m vectorModel) Contextual() bool { return false }
func (m vectorModel) VocabSize() int   { return m.V }

// Distances implements eval.Model: cosine distances; ctx and rng are ignored.
func (m vectorModel) Distances(_, queries []int, _ *rand.Rand, dst []float64) {
	m.CosineDistancesTo(dst, queries)
}

// DistanceRows implements eval.RowModel: the kept rows of the queries, those
// CosineDistancesTo copies; ctx and rng are ignored.
func (m vectorModel) DistanceRows(_, queries []int, _ *rand.Rand) ([][]float64, bool) {
	return m.keptRows(queries)
}

// runInOrder runs fit(0), …, fit(n−1) on up to GOMAXPROCS goroutines (each
// takes the next index) and hands the results to take in index order, on the
// caller's goroutine, each as soon as it and all before it are done. It stops
// at the first error in index order (later fits already running finish and are
// dropped) or when ctx is cancelled, and returns that error. fit must not
// depend on what runs beside it; then the results, and what take does with
// them, are those of the serial loop.
func runInOrder[T any](ctx context.Context, n int, fit func(i int) (T, error), take func(i int, r T)) error {
	type result struct {
		r   T
		err error
	}
	done := make([]chan result, n)
	for i := range done {
		done[i] = make(chan result, 1)
	}
	var next atomic.Int64
	stop := make(chan struct{})
	defer close(stop)
	for range min(runtime.GOMAXPROCS(0), n) {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					done[i] <- result{err: err}
					continue
				}
				r, err := fit(i)
				done[i] <- result{r, err}
			}
		}()
	}
	for i := range n {
		// A cancellation (a take may cancel) stops the run before the next
		// result even when that result is already done: select would pick
		// between the two at random.
		if err := ctx.Err(); err != nil {
			return err
		}
		var res result
		select {
		case res = <-done[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if res.err != nil {
			return res.err
		}
		take(i, res.r)
	}
	return nil
}

// tuneP2 returns the training P@2 (eval's Result.PAtK[1]) of m under the
// extended priming protocol (Eq. 9) on docs: the tuning criterion of §6.2.5.
func tuneP2(ctx context.Context, m eval.Model, docs [][]int, seed uint64) (float64, error) {
	r, err := eval.Evaluate(ctx, m, eval.Extended, docs, &eval.Options{Seed: seed})
	if err != nil {
		return 0, err
	}
	return r.PAtK[1], nil
}

// DefaultTuneDocs is the default number of training documents on which the
// tuned baselines (InfoTheo, Skip-gram) measure training P@2, for vocabularies
// up to 1200 terms; above, the default shrinks as 2.4·10⁶/|Γ| (at least 300)
// so that the cost of one tuning evaluation (documents × |δ| × |Γ| ×
// dimension) stays bounded: 308 documents for lastfm-hetrec's 7,793 training
// terms. There 300 documents ordered InfoTheo's grid points as 522 did
// (training P@2 k=1 α=0.5 / k=3 α=0.3 / k=5 α=0.1: 0.483 / 0.440 / 0.413
// against 0.457 / 0.405 / 0.378) in 1.8 s instead of 4.6 s a point.
const DefaultTuneDocs = 2000

// tuningDocs returns at most n training documents with at least two distinct
// terms, chosen by a seeded uniform sample (in increasing index order) when
// there are more; n ≤ 0 means the default for v terms (see DefaultTuneDocs).
func tuningDocs(train [][]int, v, n int, seed uint64) [][]int {
	defaults.Positive(&n, min(DefaultTuneDocs, max(300, 2_400_000/max(v, 1))))
	var ok []int
	for i, d := range train {
		if len(features.BoW(d)) >= 2 {
			ok = append(ok, i)
		}
	}
	if len(ok) > n {
		rng := rand.New(rand.NewPCG(seed, 0x5eed7e57))
		perm := rng.Perm(len(ok))[:n]
		sel := make([]bool, len(ok))
		for _, p := range perm {
			sel[p] = true
		}
		var kept []int
		for p, i := range ok {
			if sel[p] {
				kept = append(kept, i)
			}
		}
		ok = kept
	}
	out := make([][]int, len(ok))
	for k, i := range ok {
		out[k] = features.BoW(train[i])
	}
	return out
}

// checkTrain validates the encoded training documents of a global baseline.
func checkTrain(name string, train [][]int, v int) error {
	if v < 2 {
		return fmt.Errorf("baselines: %s: vocabulary of %d terms, need at least 2", name, v)
	}
	if len(train) < 2 {
		return fmt.Errorf("baselines: %s: %d training documents, need at least 2", name, len(train))
	}
	for i, d := range train {
		for _, t := range d {
			if t < 0 || t >= v {
				return fmt.Errorf("baselines: %s: document %d: term %d outside vocabulary of %d", name, i, t, v)
			}
		}
	}
	return nil
}

// scoresOf returns the V×Out unscaled PCA scores of the rows of the sparse
// matrix a (the term vectors of the PCA-reduced aggregation baselines).
func scoresOf(p *features.Projection, a *features.Sparse) []float64 {
	out := make([]float64, a.R*p.Out)
	for i := 0; i < a.R; i++ {
		ind, val := a.Row(i)
		p.SparseScoresTo(out[i*p.Out:(i+1)*p.Out], ind, val)
	}
	return out
}

// pcaOpts returns the PCA options for a global baseline of dimension dim over v
// terms: exact below features.DefaultExactMaxTerms, randomized above.
func pcaOpts(v, dim int, seed uint64) *features.PCAOptions {
	return &features.PCAOptions{Dim: dim, Randomized: v > features.DefaultExactMaxTerms, Seed: seed}
}
