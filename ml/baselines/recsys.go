package baselines

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/features"
)

// The top-N recommendation baselines (EASE^R, RP3beta, item-kNN) read "given
// a document's tags, rank the tags that go with them" as item recommendation:
// a document is a user, its tags the items it holds. They are tuned by the
// extended-priming MAP of validation documents (tuneMAP), not by training
// P@2 as the paper's baselines are: their hyper-parameters (EASE^R's λ, the
// neighbourhood sizes) trade fit against generalisation, which training
// documents cannot judge.

// Data is what a baseline is trained on: the training documents, the
// validation documents of the split (encoded in the same vocabulary of V
// terms) and a cache of fits shared by the baselines of one trial.
type Data struct {
	Train [][]int
	// Valid are the validation documents the recommender baselines are tuned
	// on; when there are none, tuning holds out training documents (see
	// tuneSplit).
	Valid [][]int
	V     int
	// Shared, if not nil, lets baselines of one trial share a fit (EASE^R's
	// inverse serves ease and ease-score); nil computes every fit anew.
	Shared *Shared
}

// Shared holds fits that several baselines of one trial compute alike (and
// any other value of the trial computed once for several of its entries,
// see Do). A comparison makes one per trial and drops it with the trial; the
// zero value is ready to use and safe for concurrent use.
type Shared struct {
	mu      sync.Mutex
	flights map[string]*sharedFit
}

// sharedFit is one shared fit: the first caller computes it, later callers wait
// for done and read the same value.
type sharedFit struct {
	done chan struct{}
	val  any
	err  error
}

// Do returns the value named key, computing it with fit on the first call
// (the others wait for it and read the same value and error). A nil Shared
// computes every time.
func (s *Shared) Do(key string, fit func() (any, error)) (any, error) {
	if s == nil {
		return fit()
	}
	s.mu.Lock()
	if s.flights == nil {
		s.flights = map[string]*sharedFit{}
	}
	if f, ok := s.flights[key]; ok {
		s.mu.Unlock()
		<-f.done
		return f.val, f.err
	}
	f := &sharedFit{done: make(chan struct{})}
	s.flights[key] = f
	s.mu.Unlock()
	f.val, f.err = fit()
	close(f.done)
	return f.val, f.err
}

// DefaultValidDocs is the default number of validation documents a
// recommender baseline is tuned on (a seeded sample when there are more).
const DefaultValidDocs = 2000

// tuneSplit returns the documents a recommender baseline is fitted on while
// it is tuned and those it is tuned on: the training documents and at most n
// validation documents with two or more distinct terms (a seeded sample);
// when d has no such validation document, a seeded fifth of the training
// documents (at most n) is held out for tuning and the rest fitted, and
// heldOut is true (the chosen setting is then refitted on every training
// document).
func tuneSplit(d Data, n int, seed uint64) (fit, tune [][]int, heldOut bool) {
	if n <= 0 {
		n = DefaultValidDocs
	}
	var ok []int
	for i, doc := range d.Valid {
		if len(features.BoW(doc)) >= 2 {
			ok = append(ok, i)
		}
	}
	if len(ok) > 0 {
		return d.Train, sample(d.Valid, ok, n, seed), false
	}
	rng := rand.New(rand.NewPCG(seed, 0x7e11d0c5))
	perm := rng.Perm(len(d.Train))
	hold := make([]bool, len(d.Train))
	k := 0
	for _, p := range perm {
		if k == min(n, len(d.Train)/5) {
			break
		}
		if len(features.BoW(d.Train[p])) >= 2 {
			hold[p] = true
			k++
		}
	}
	for i, doc := range d.Train {
		if hold[i] {
			tune = append(tune, features.BoW(doc))
		} else {
			fit = append(fit, doc)
		}
	}
	return fit, tune, true
}

// sample returns the documents docs[i] for i in idx, at most n of them (a
// seeded uniform sample kept in increasing order), each as its BoW.
func sample(docs [][]int, idx []int, n int, seed uint64) [][]int {
	if len(idx) > n {
		rng := rand.New(rand.NewPCG(seed, 0x5a3e7a11))
		sel := make([]bool, len(idx))
		for _, p := range rng.Perm(len(idx))[:n] {
			sel[p] = true
		}
		var kept []int
		for p, i := range idx {
			if sel[p] {
				kept = append(kept, i)
			}
		}
		idx = kept
	}
	out := make([][]int, len(idx))
	for k, i := range idx {
		out[k] = features.BoW(docs[i])
	}
	return out
}

// tuneMAP returns the MAP of m under the extended priming protocol on the
// tuning documents: the recommender baselines' tuning criterion.
func tuneMAP(ctx context.Context, m eval.Model, docs [][]int, seed uint64) (float64, error) {
	r, err := eval.Evaluate(ctx, m, eval.Extended, docs, &eval.Options{Seed: seed})
	if err != nil {
		return 0, err
	}
	return r.MAP, nil
}

// simModel ranks a document's vocabulary by a sum of item-to-item
// similarities, the score of a neighbourhood recommender,
//
//	score(j | δ) = Σ_{t ∈ δ} W[t, j],  W[j, j] = 0,
//
// so a term of δ is scored by the document's other terms only (Eq. 9's
// t̂ ≠ τ_j). W is sparse, one row per source term. Under Eq. 9 (a query's
// row of distances) the distance from t to j is −W[t, j]. It is
// non-contextual and immutable.
type simModel struct {
	name string
	w    *features.Sparse
}

func (m *simModel) Name() string     { return m.name }
func (m *simModel) Contextual() bool { return false }
func (m *simModel) VocabSize() int   { return m.w.C }

// Distances implements eval.Model: dst[i·V+j] = −W[queries[i], j].
func (m *simModel) Distances(_, queries []int, _ *rand.Rand, dst []float64) {
	v := m.w.C
	if len(dst) != len(queries)*v {
		panic(fmt.Sprintf("baselines: %s: len(dst) = %d, want %d", m.name, len(dst), len(queries)*v))
	}
	clear(dst)
	for i, q := range queries {
		ind, val := m.w.Row(q)
		row := dst[i*v : (i+1)*v]
		for p, j := range ind {
			row[j] = -val[p]
		}
	}
}

// ListTo implements eval.ListModel: dst[j] = −Σ_{t ∈ queries} W[t, j].
func (m *simModel) ListTo(dst []float64, _, queries []int, _ *rand.Rand) {
	clear(dst)
	for _, q := range queries {
		ind, val := m.w.Row(q)
		for p, j := range ind {
			dst[j] -= val[p]
		}
	}
}

// topK keeps, in every row of w, the k entries of largest value (ties to the
// smaller column), dropping the rest and every entry that is not positive; k
// ≤ 0 keeps every positive entry. Columns stay sorted.
func topK(w *features.Sparse, k int) *features.Sparse {
	return rankRows(w, k).topK(k)
}

// rowRanking holds, for every row of a sparse matrix, the positions of its
// positive entries by decreasing value, ties to the smaller column, the first
// kmax of them: the top k of a row for any k ≤ kmax is a prefix, so a grid of
// neighbourhood sizes sorts each row once.
type rowRanking struct {
	w    *features.Sparse
	kmax int
	npos []int   // positive entries of each row
	ptr  []int   // row i's ranked positions are pos[ptr[i]:ptr[i+1]]
	pos  []int32 // positions within the row
}

// rankRows ranks the rows of w for the top kmax entries; kmax ≤ 0 ranks
// nothing (topK(k) then takes k ≤ 0 only: every positive entry).
func rankRows(w *features.Sparse, kmax int) *rowRanking {
	r := &rowRanking{w: w, kmax: kmax, npos: make([]int, w.R), ptr: make([]int, w.R+1)}
	var order []int32
	for i := 0; i < w.R; i++ {
		ind, val := w.Row(i)
		order = order[:0]
		for p := range ind {
			if val[p] > 0 {
				order = append(order, int32(p))
			}
		}
		r.npos[i] = len(order)
		if kmax > 0 {
			before := func(a, b int32) int {
				if c := cmp.Compare(val[b], val[a]); c != 0 {
					return c
				}
				return int(a - b)
			}
			// The order is total, so selecting the first kmax and sorting
			// them gives the prefix of the whole row sorted.
			selectFirst(order, kmax, before)
			top := order[:min(kmax, len(order))]
			slices.SortFunc(top, before)
			r.pos = append(r.pos, top...)
		}
		r.ptr[i+1] = len(r.pos)
	}
	return r
}

// selectFirst reorders xs so that its first k elements are the k smallest
// by cmp (a total order), in no particular order: Hoare's selection with the
// median of three as pivot, deterministic.
func selectFirst(xs []int32, k int, cmp func(a, b int32) int) {
	lo, hi := 0, len(xs)-1
	for lo < hi && k > lo && k <= hi {
		mid := lo + (hi-lo)/2
		// Median of three at mid.
		if cmp(xs[mid], xs[lo]) < 0 {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if cmp(xs[hi], xs[lo]) < 0 {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if cmp(xs[hi], xs[mid]) < 0 {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for cmp(xs[i], pivot) < 0 {
				i++
			}
			for cmp(pivot, xs[j]) < 0 {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// xs[lo..j] ≤ pivot ≤ xs[i..hi]; the k-th boundary lies in one side.
		switch {
		case k <= j+1:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// topK is topK(w, k) of the ranked matrix. It panics if k > 0 exceeds the
// ranked kmax.
func (r *rowRanking) topK(k int) *features.Sparse {
	if k > 0 && (r.kmax <= 0 || k > r.kmax) {
		panic(fmt.Sprintf("baselines: top %d of rows ranked for %d", k, r.kmax))
	}
	w := r.w
	out := &features.Sparse{R: w.R, C: w.C, Ptr: make([]int, w.R+1)}
	var keep []int32
	for i := 0; i < w.R; i++ {
		ind, val := w.Row(i)
		if k <= 0 || r.npos[i] <= k {
			for p, j := range ind {
				if val[p] > 0 {
					out.Ind = append(out.Ind, j)
					out.Val = append(out.Val, val[p])
				}
			}
		} else {
			keep = append(keep[:0], r.pos[r.ptr[i]:r.ptr[i]+k]...)
			slices.Sort(keep)
			for _, p := range keep {
				out.Ind = append(out.Ind, ind[p])
				out.Val = append(out.Val, val[p])
			}
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out
}
