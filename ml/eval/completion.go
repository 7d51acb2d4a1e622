package eval

import (
	"errors"
	"math"
)

// Completion is taglens's protocol for judging a model where nothing it looks
// for is in its context (not the paper's): each term j of a document δ in turn
// is held out; the context and the queries are δ ∖ {j}; every vocabulary term
// outside δ ∖ {j} is ranked by Eq. 9's minimum over the queries,
// min_{t̂ ∈ δ∖{j}, t̂ ≠ τ} e(t̂, τ | c = δ ∖ {j}) (a ListModel by its own score
// given δ ∖ {j}); the one relevant term is j. It is leave-one-out completion,
// the way top-N recommenders are judged.
//
// Why it exists: under the extended protocol the context is the whole document,
// so a contextual model is also told which terms it must find, and a model can
// score by recognising the context's own terms, which a recommender's own
// score (leave-one-out by construction: diag(B) = 0 for EASE^R) never uses.
// Completion takes that cue away from every model alike.
//
// Each held-out term is one ranked list with one relevant term, so the
// figures read: P@K = 1/K when j is within the first K, else 0; AP over K = 1
// (Eq. 11 truncated at |{j}| = 1) is P@1, the hit rate at 1; Eq. 12's
// interpolated precision is 1/rank at every recall level, so the AUC is the
// reciprocal rank and its mean the MRR. Queries counts the held-out terms.
const Completion Protocol = "completion"

// ErrWholeContext is returned (wrapped) when a WholeContextModel is evaluated
// with the completion protocol: its context is the document's identity, which
// holds the term to find.
var ErrWholeContext = errors.New("model's context is the whole document (its identity), which holds the held-out term: no completion")

// completion evaluates one document under the completion protocol into acc.
func (w *worker) completion(m Model, doc []int, i int, opt *Options, acc *docAcc) {
	if len(doc) < max(2, opt.minTerms()) {
		acc.skipped = true
		return
	}
	w.reseed(opt.Seed, i)
	v := w.v
	lm, listed := m.(ListModel)
	rest := w.reduced[:0]
	for k, j := range doc {
		rest = append(rest[:0], doc[:k]...)
		rest = append(rest, doc[k+1:]...)
		mn := w.min
		if listed {
			lm.ListTo(mn, rest, rest, w.rng)
		} else {
			dist := w.dist[:len(rest)*v]
			m.Distances(rest, rest, w.rng, dist)
			mn = w.eq9Min(rest, nil, dist)
		}
		// The context's terms are not candidates: NaN ranks after every
		// number (RanksTo), so none of them precedes j.
		for _, t := range rest {
			mn[t] = math.NaN()
		}
		w.ranks[0] = 0
		ScoreList(mn, []int{j}, w.ranks[:1], &w.s)
		acc.add(&w.s)
	}
}
