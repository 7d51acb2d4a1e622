package baselines

import (
	"fmt"
	"math/rand/v2"
)

// Random ranks the vocabulary uniformly at random (paper §6.2.5, "Random"): each
// call to Distances draws one independent uniform distance u_j ~ U[0,1) per
// vocabulary term j from rng and gives it to every query of the call, so that
//
//   - under the priming protocol (Eq. 8) each query's list is a uniformly random
//     permutation of the vocabulary (the lists of one document's queries are the
//     same permutation; each is still uniform, so every expectation is that of a
//     uniform ranking);
//   - under the extended protocol (Eq. 9) the minimum over the document's other
//     terms is u_j again, so the document-level list is also a uniformly random
//     permutation. Independent draws per query would not be: a term of δ takes its
//     minimum over one draw fewer than a term outside δ and would rank below chance.
//
// Hence E[P@K] = |δ|/|Γ| for every K and E[AP] = |δ|/|Γ| per list (hypergeometric
// mean). Random is contextual in the paper's sense (it is evaluated with the priming
// protocol) though it ignores the context. Its only state is V, so it is safe for
// concurrent use.
type Random struct {
	v int
}

// NewRandom returns the Random baseline over a vocabulary of v terms. It panics if
// v < 1.
func NewRandom(v int) *Random {
	if v < 1 {
		panic(fmt.Sprintf("baselines: NewRandom: vocabulary of %d terms", v))
	}
	return &Random{v: v}
}

// Name returns "random".
func (r *Random) Name() string { return NameRandom }

// Contextual returns true: the paper evaluates Random with the priming protocol.
func (r *Random) Contextual() bool { return true }

// VocabSize returns V.
func (r *Random) VocabSize() int { return r.v }

// Distances fills dst (len(queries)·V) with one row of uniform draws repeated for
// every query. ctx is ignored. It panics if len(dst) != len(queries)·V.
func (r *Random) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	if len(dst) != len(queries)*r.v {
		panic(fmt.Sprintf("baselines: Random.Distances: len(dst) = %d, want %d", len(dst), len(queries)*r.v))
	}
	if len(queries) == 0 {
		return
	}
	row := dst[:r.v]
	for j := range row {
		row[j] = rng.Float64()
	}
	for i := 1; i < len(queries); i++ {
		copy(dst[i*r.v:(i+1)*r.v], row)
	}
}
