package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
)

// A Protocol is a semantic priming protocol (paper §6.1).
type Protocol string

const (
	// Priming (Eq. 8): each term of a document in turn is the query, in the
	// document's context; each query ranks the whole vocabulary and is scored
	// against the document's terms (the query itself included, as in the paper).
	Priming Protocol = "priming"

	// Extended priming (Eq. 9): one document-level list ranks every vocabulary term
	// τ by min_{t̂ ∈ δ, t̂ ≠ τ} e(t̂, τ | c), scored against the document's terms.
	Extended Protocol = "extended"
)

// ParseProtocol parses "priming", "extended" or "completion".
func ParseProtocol(s string) (Protocol, error) {
	switch p := Protocol(strings.ToLower(strings.TrimSpace(s))); p {
	case Priming, Extended, Completion:
		return p, nil
	}
	return "", fmt.Errorf("eval: unknown protocol %q (want priming, extended or completion)", s)
}

// ErrNotContextual is returned (wrapped) when a model that ignores the context is
// evaluated with the priming protocol; the paper evaluates such models with the
// extended protocol only (§6.2.5).
var ErrNotContextual = errors.New("model is not contextual: the priming protocol needs a contextual model (paper §6.2.5)")

// Options tune an evaluation. The zero value (or nil) gives the defaults.
type Options struct {
	// Seed of the trial. Document i of the list gets its own random stream,
	// PCG(Seed, splitmix64(i)), used first to corrupt its context (Missing) and then
	// by the model, so results do not depend on Workers and every model of a trial
	// sees the same corrupted documents.
	Seed uint64

	// Workers is the number of goroutines evaluating documents (default 2). Worker
	// w handles documents w, w+Workers, ...; results are reduced in document order,
	// so the output is bit-identical for any Workers.
	Workers int

	// NoScreening makes a ScreeningModel compute every distance exactly
	// (Distances) instead of screening: the same figures, more slowly. For
	// tests and benchmarks.
	NoScreening bool

	// MinTerms is the fewest in-vocabulary terms a document needs to be evaluated
	// (default 2: a single-term document has no co-occurring term to prime, and
	// Eq. 9 is then undefined for its only term). Shorter documents are skipped and
	// counted. EvaluateOOV needs at least one in-vocabulary term and ignores it.
	MinTerms int

	// Missing is the missing-rate band of the incomplete local context setting
	// (§6.2.3); the zero Band evaluates complete documents. With a band, the
	// context c = δ̃ is the reduced document, the queries are the terms of δ̃ (the
	// model is given δ̃ only) and the ground truth is the full document δ.
	Missing Band

	// Progress, if not nil, is called after each document with the number of
	// documents done and the total, from worker goroutines but never concurrently.
	Progress func(done, total int)
}

func (o *Options) workers() int {
	if o.Workers <= 0 {
		return 2
	}
	return o.Workers
}

func (o *Options) minTerms() int {
	if o.MinTerms <= 0 {
		return 2
	}
	return o.MinTerms
}

// Result is the priming accuracy of one model on one list of documents (one trial).
type Result struct {
	// PAtK[K-1] = P@K(X) of Eq. 10; PAtK[1] is the P@2 used for early stopping
	// and tuning.
	PAtK [MaxK]float64
	MAP  float64 // Eq. 11
	// MAPDocSE is MAP's standard error over the evaluated documents, each
	// document's lists taken together (MAP is a ratio of sums: the
	// linearized estimate √(n/(n−1)·Σ_δ (ΣAP_δ − MAP·|lists_δ|)²) / Σ|lists_δ|,
	// which is the sample standard deviation of AP over √n when every
	// document has one list, as in the extended protocol): how much MAP
	// would move with another sample of documents. 0 below two documents.
	MAPDocSE float64
	PR       [RecallLevels]float64 // Precision(ℓ|X) of Eq. 12, interpolated (see Scores.PR)
	AUC      float64               // area under PR, trapezoid rule
	// Queries is |X|, the number of ranked lists scored: queries in the priming
	// protocol, documents in the extended protocol.
	Queries int
	// Docs is the number of documents evaluated, Skipped the number left out
	// (too few in-vocabulary terms, band unreachable, no in-vocabulary term for OOV).
	Docs, Skipped int
	// FailedQueries counts OOV queries the model could not represent (EvaluateOOV).
	FailedQueries int
}

// docAcc is the sum of the Scores of one document's lists.
type docAcc struct {
	sum     Scores
	n       int
	failed  int
	skipped bool
}

func (a *docAcc) add(s *Scores) {
	for k := range s.PAtK {
		a.sum.PAtK[k] += s.PAtK[k]
	}
	a.sum.AP += s.AP
	for l := range s.PR {
		a.sum.PR[l] += s.PR[l]
	}
	a.n++
}

// reduce sums the per-document accumulators in document order into a Result.
func reduce(accs []docAcc) *Result {
	var r Result
	var sum Scores
	for i := range accs {
		a := &accs[i]
		if a.skipped {
			r.Skipped++
			continue
		}
		r.Docs++
		r.Queries += a.n
		r.FailedQueries += a.failed
		for k := range sum.PAtK {
			sum.PAtK[k] += a.sum.PAtK[k]
		}
		sum.AP += a.sum.AP
		for l := range sum.PR {
			sum.PR[l] += a.sum.PR[l]
		}
	}
	if r.Queries > 0 {
		q := float64(r.Queries)
		for k := range r.PAtK {
			r.PAtK[k] = sum.PAtK[k] / q
		}
		r.MAP = sum.AP / q
		for l := range r.PR {
			r.PR[l] = sum.PR[l] / q
		}
		r.AUC = AUC(&r.PR)
		if r.Docs > 1 {
			var ss float64
			for i := range accs {
				if a := &accs[i]; !a.skipped {
					e := a.sum.AP - r.MAP*float64(a.n)
					ss += e * e
				}
			}
			n := float64(r.Docs)
			r.MAPDocSE = math.Sqrt(ss*n/(n-1)) / q
		}
	}
	return &r
}

// splitmix64 scrambles a document index into a well-mixed stream selector.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// A worker holds the reusable workspaces of one goroutine.
type worker struct {
	v       int
	dist    []float64 // maxQ·V distances
	min     []float64 // V: Eq. 9 minimum
	ranks   []int     // ≤ max |δ|
	idx     []int     // permutation workspace for removal
	removed []bool
	reduced []int
	pcg     *rand.PCG
	rng     *rand.Rand
	s       Scores
	// settle's workspaces (screening models)
	mark   []uint32 // V: stamp of doc's terms and of the terms to settle
	stamp  uint32
	scores []float64 // ≤ max |δ|: the relevant scores, sorted
	unsure []int
}

func newWorker(v, maxLen int) *worker {
	pcg := rand.NewPCG(0, 0)
	return &worker{
		v:       v,
		dist:    make([]float64, maxLen*v),
		min:     make([]float64, v),
		mark:    make([]uint32, v),
		scores:  make([]float64, maxLen),
		ranks:   make([]int, maxLen),
		idx:     make([]int, maxLen),
		removed: make([]bool, maxLen),
		reduced: make([]int, 0, maxLen),
		pcg:     pcg,
		rng:     rand.New(pcg),
	}
}

// reseed points the worker's random stream at document i of the trial.
func (w *worker) reseed(seed uint64, i int) { w.pcg.Seed(seed, splitmix64(uint64(i))) }

// corrupt returns the reduced document δ̃ for band b, or ok = false when doc is
// too short to reach b. It draws from w.rng.
func (w *worker) corrupt(doc []int, b Band) (reduced []int, ok bool) {
	n := len(doc)
	lo, hi, ok := b.removals(n)
	if !ok {
		return nil, false
	}
	r := lo + w.rng.IntN(hi-lo+1)
	idx := w.idx[:n]
	for i := range idx {
		idx[i] = i
		w.removed[i] = false
	}
	for i := 0; i < r; i++ { // partial Fisher-Yates: idx[:r] are the removed positions
		j := i + w.rng.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
		w.removed[idx[i]] = true
	}
	red := w.reduced[:0]
	for i, t := range doc {
		if !w.removed[i] {
			red = append(red, t)
		}
	}
	return red, true
}

// doc evaluates one document of the within-corpus, cross-corpora or incomplete
// setting under each protocol of ps into accs[k] (one accumulator per
// protocol): the distances are computed once and scored by every protocol, so
// the figures are those of one Evaluate call per protocol.
func (w *worker) doc(m Model, ps []Protocol, doc []int, i int, opt *Options, accs []*docAcc) {
	if len(doc) < opt.minTerms() {
		for _, acc := range accs {
			acc.skipped = true
		}
		return
	}
	w.reseed(opt.Seed, i)
	queries, ctx := doc, doc
	if !opt.Missing.IsZero() {
		red, ok := w.corrupt(doc, opt.Missing)
		if !ok {
			for _, acc := range accs {
				acc.skipped = true
			}
			return
		}
		queries, ctx = red, red
		if _, whole := m.(WholeContextModel); whole {
			ctx = doc
		}
	}
	v := w.v
	ranks := w.ranks[:len(doc)]
	extendedOnly := true
	for _, p := range ps {
		extendedOnly = extendedOnly && p == Extended
	}
	lm, listed := m.(ListModel)
	var rows [][]float64 // the queries' rows of distances, when the model lends them
	if listed && extendedOnly {
		rows = [][]float64{} // no distance is needed: ListTo ranks the document
	} else if rm, ok := m.(RowModel); ok && extendedOnly {
		if r, ok := rm.DistanceRows(ctx, queries, w.rng); ok {
			rows = r
		}
	}
	dist := w.dist[:len(queries)*v]
	if rows == nil {
		screened := false
		if sm, ok := m.(ScreeningModel); ok && !opt.NoScreening {
			var eps float64
			var refine func([]int)
			if eps, refine, screened = sm.ScreenDistances(ctx, queries, doc, w.rng, dist); screened {
				w.settle(ps, doc, queries, dist, eps, refine)
			}
		}
		if !screened {
			m.Distances(ctx, queries, w.rng, dist)
		}
	}
	for k, p := range ps {
		acc := accs[k]
		switch p {
		case Priming:
			for q := range queries {
				ScoreList(dist[q*v:(q+1)*v], doc, ranks, &w.s)
				acc.add(&w.s)
			}
		case Extended:
			if listed {
				lm.ListTo(w.min, ctx, queries, w.rng)
				ScoreList(w.min, doc, ranks, &w.s)
				acc.add(&w.s)
				continue
			}
			// Eq. 9: min over t̂ ∈ δ̃, t̂ ≠ τ_j of e(t̂, τ_j | c). NaN distances never
			// win the minimum; a term with no eligible distance stays at +Inf.
			mn := w.eq9Min(queries, rows, dist)
			ScoreList(mn, doc, ranks, &w.s)
			acc.add(&w.s)
		}
	}
}

// eq9Min fills w.min with Eq. 9's minimum over the queries of each term's
// distance, min_{t̂ ∈ queries, t̂ ≠ τ_j} e(t̂, τ_j | c), from the queries' rows
// (lent by a RowModel) or, when rows is nil, from dist (len(queries) × V); NaN
// distances never win, and a term with no eligible distance stays at +Inf.
func (w *worker) eq9Min(queries []int, rows [][]float64, dist []float64) []float64 {
	v, mn := w.v, w.min
	for j := range mn {
		mn[j] = math.Inf(1)
	}
	for q, t := range queries {
		if rows != nil {
			MinRow(mn, rows[q][:v], t)
		} else {
			MinRow(mn, dist[q*v:(q+1)*v], t)
		}
	}
	return mn
}

// checkDocs validates the terms of docs against a vocabulary of v terms and returns
// the longest document length.
func checkDocs(docs [][]int, v int) (int, error) {
	seen := make([]int, v) // stamp: document index + 1
	maxLen := 0
	for i, d := range docs {
		for _, t := range d {
			if t < 0 || t >= v {
				return 0, fmt.Errorf("document %d: term %d outside the model's vocabulary of %d terms", i, t, v)
			}
			if seen[t] == i+1 {
				return 0, fmt.Errorf("document %d: term %d repeated", i, t)
			}
			seen[t] = i + 1
		}
		maxLen = max(maxLen, len(d))
	}
	return maxLen, nil
}

// Evaluate measures the priming accuracy of m under protocol p on docs (each a
// document's in-vocabulary term indices, distinct, in [0, m.VocabSize())) with the
// options opt (nil means defaults). Documents shorter than Options.MinTerms are
// skipped. With Options.Missing it evaluates the incomplete local context setting.
//
// It returns ErrNotContextual (wrapped) for the priming protocol and a model that
// is not Contextual, an error for invalid documents, and ctx.Err() if cancelled.
// Time O(Σ_δ |δ|·V·(|δ| + cost of the model)); memory O(Workers·max|δ|·V).
func Evaluate(ctx context.Context, m Model, p Protocol, docs [][]int, opt *Options) (*Result, error) {
	rs, err := EvaluateAll(ctx, m, []Protocol{p}, docs, opt)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// EvaluateAll is Evaluate under several protocols at once: the distances of
// each document are computed once and scored by every protocol of ps, so
// rs[k] equals Evaluate(ctx, m, ps[k], docs, opt) at the cost of one model
// pass (training validates both protocols every epoch this way).
func EvaluateAll(ctx context.Context, m Model, ps []Protocol, docs [][]int, opt *Options) (rs []*Result, err error) {
	if opt == nil {
		opt = &Options{}
	}
	if len(ps) == 0 {
		return nil, errors.New("eval: no protocol")
	}
	for _, p := range ps {
		switch p {
		case Priming:
			if !m.Contextual() {
				return nil, fmt.Errorf("eval: %s: %w", m.Name(), ErrNotContextual)
			}
		case Extended:
		case Completion:
			if len(ps) > 1 {
				return nil, errors.New("eval: the completion protocol is evaluated alone (its contexts are not the other protocols')")
			}
			if !opt.Missing.IsZero() {
				return nil, errors.New("eval: the completion protocol has no missing-rate band (it holds out one term at a time)")
			}
			if _, whole := m.(WholeContextModel); whole {
				return nil, fmt.Errorf("eval: %s: %w", m.Name(), ErrWholeContext)
			}
		default:
			return nil, fmt.Errorf("eval: unknown protocol %q", p)
		}
	}
	if opt.Missing.Lo < 0 || opt.Missing.Hi > 100 || (!opt.Missing.IsZero() && opt.Missing.Lo >= opt.Missing.Hi) {
		return nil, fmt.Errorf("eval: bad missing-rate band %v", opt.Missing)
	}
	v := m.VocabSize()
	maxLen, err := checkDocs(docs, v)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", m.Name(), err)
	}
	if pr, ok := m.(QueryPreparer); ok {
		pr.PrepareQueries(queryTerms(docs, v, opt.minTerms()))
	}
	accs := make([][]docAcc, len(ps))
	for k := range accs {
		accs[k] = make([]docAcc, len(docs))
	}
	err = parallel(ctx, len(docs), opt, func() func(i int) {
		w := newWorker(v, maxLen)
		acc := make([]*docAcc, len(ps))
		return func(i int) {
			for k := range ps {
				acc[k] = &accs[k][i]
			}
			if ps[0] == Completion {
				w.completion(m, docs[i], i, opt, acc[0])
				return
			}
			w.doc(m, ps, docs[i], i, opt, acc)
		}
	})
	if err != nil {
		return nil, err
	}
	rs = make([]*Result, len(ps))
	for k := range ps {
		rs[k] = reduce(accs[k])
	}
	return rs, nil
}

// queryTerms returns, in increasing order, the distinct terms of the documents
// of at least minTerms terms (the documents Evaluate does not skip).
func queryTerms(docs [][]int, v, minTerms int) []int {
	seen := make([]bool, v)
	for _, d := range docs {
		if len(d) >= minTerms {
			for _, t := range d {
				seen[t] = true
			}
		}
	}
	var out []int
	for t, ok := range seen {
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// An OOVDoc is a document with out-of-vocabulary terms (paper §6.2.4): its
// in-vocabulary terms (the context and the ground truth) and its OOV terms (the
// queries).
type OOVDoc struct {
	Terms []int
	OOV   []string
}

// EvaluateOOV measures the priming accuracy of an OOV model (paper §6.2.4; the
// priming protocol only, as in the paper): for each document and each of its OOV
// terms, the query is that term in the context of the document's in-vocabulary
// terms, which are also the ground truth. Documents without an in-vocabulary or an
// OOV term are skipped; queries for which the model returns an error are counted
// in Result.FailedQueries and left out. Options.Missing must be zero.
func EvaluateOOV(ctx context.Context, m OOVModel, docs []OOVDoc, opt *Options) (*Result, error) {
	if opt == nil {
		opt = &Options{}
	}
	if !opt.Missing.IsZero() {
		return nil, errors.New("eval: the OOV setting has no missing-rate band")
	}
	v := m.VocabSize()
	terms := make([][]int, len(docs))
	for i := range docs {
		terms[i] = docs[i].Terms
	}
	maxLen, err := checkDocs(terms, v)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", m.Name(), err)
	}
	accs := make([]docAcc, len(docs))
	err = parallel(ctx, len(docs), opt, func() func(i int) {
		w := newWorker(v, max(maxLen, 1))
		return func(i int) {
			d := &docs[i]
			acc := &accs[i]
			if len(d.Terms) == 0 || len(d.OOV) == 0 {
				acc.skipped = true
				return
			}
			w.reseed(opt.Seed, i)
			dist := w.dist[:v]
			ranks := w.ranks[:len(d.Terms)]
			for _, q := range d.OOV {
				if err := m.OOVDistances(q, d.Terms, w.rng, dist); err != nil {
					acc.failed++
					continue
				}
				ScoreList(dist, d.Terms, ranks, &w.s)
				acc.add(&w.s)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return reduce(accs), nil
}

// parallel runs the per-document function of each of opt.workers() workers over a
// fixed strided partition of 0..n-1 and stops early when ctx is cancelled.
func parallel(ctx context.Context, n int, opt *Options, newFn func() func(i int)) error {
	nw := min(opt.workers(), max(n, 1))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for w := 0; w < nw; w++ {
		fn := newFn()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += nw {
				if ctx.Err() != nil {
					return
				}
				fn(i)
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
