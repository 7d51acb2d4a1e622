package eval

import "math/rand/v2"

// A Model ranks vocabulary terms by their distance to a query concept. Every model
// that taglens evaluates (the paper's CE and Siamese-CE, its eight baselines and the
// two modern ones, PPMI-SVD and GloVe)
// implements it, so that both priming protocols treat all models alike.
//
// Terms are indices into the training vocabulary of the model (0..V-1).
type Model interface {
	// Name is the model's report name: "random", "lsa", "pca", "infotheo",
	// "skipgram", "lda", "plsa", "crbm", "ppmi-svd", "glove", "ce", "siamese-ce".
	Name() string

	// Contextual reports whether the distance depends on the document context
	// (paper §6.2.5: only such models are evaluated with the priming protocol).
	Contextual() bool

	// VocabSize returns V, the number of terms the model ranks.
	VocabSize() int

	// Distances fills dst, of length len(queries)*V, with the contextualized
	// distance e(q, τ_j | ctx) of Eq. 8 from each query term q = queries[i] to every
	// vocabulary term j: dst[i*V+j]. ctx is the document that forms the local
	// context (in-vocabulary terms only); queries are usually terms of ctx.
	// Non-contextual models ignore ctx. Smaller means more related.
	//
	// rng is the only source of randomness a stochastic model may use (Random,
	// CRBM, Gibbs fold-in of a context); eval derives it from the trial seed and
	// the document, so results do not depend on scheduling. Distances must be safe
	// for concurrent use by several goroutines, each with its own rng and dst.
	Distances(ctx, queries []int, rng *rand.Rand, dst []float64)
}

// An OOVModel places an out-of-vocabulary term in context (paper §4.4) and ranks
// vocabulary terms against it. Names: "ce-feature", "siamese-ce-feature",
// "ce-avg", "siamese-ce-avg".
type OOVModel interface {
	Name() string
	VocabSize() int

	// OOVDistances fills dst (length V) with the distance from the OOV term in
	// context ctx (the document's in-vocabulary terms) to every vocabulary term.
	// It returns an error if the model cannot represent term (e.g. the
	// feature-based method for a term seen in no document it was given).
	OOVDistances(term string, ctx []int, rng *rand.Rand, dst []float64) error
}

// A WholeContextModel's local context is the identity of its document, which
// cannot be made incomplete: CRBM's one-hot condition (§6.5: "its local context
// is the ID of a query document and hence cannot be distorted. Nevertheless, we
// use the CRBM only in the extended priming protocol although its local context
// is not distorted"). In the incomplete local context setting such a model
// receives the whole document as ctx; its queries are the reduced document's
// terms, like every model's.
type WholeContextModel interface {
	Model
	WholeContext()
}

// A Tuned model reports how it was built or tuned — chosen hyper-parameters (k and
// α, window, dimension, topic count), the criterion and its value, the training
// seed. It is optional: `taglens eval` copies Tuning into the model's entry of the
// report (ModelReport.Tuning), so values must be JSON-encodable.
type Tuned interface {
	Tuning() map[string]any
}

// A QueryPreparer is told, before an evaluation ranks any document, every term
// that its documents may ask as a query (Evaluate passes the distinct terms of
// the documents it evaluates, in increasing order), so that it can compute
// what it keeps per query term in one batch. It must not change any distance.
type QueryPreparer interface {
	PrepareQueries(terms []int)
}

// A RowModel can lend the rows of distances that Distances would write, for
// models that keep them (the non-contextual baselines keep one row per query
// term), so that the extended protocol reads them where they are instead of
// copying them. DistanceRows returns, for each query, a read-only row of V
// distances equal to what Distances(ctx, queries, rng, dst) writes, having
// drawn from rng what Distances draws, or ok = false (nothing drawn) when it
// has no such rows for this call; the caller then calls Distances.
type RowModel interface {
	Model
	DistanceRows(ctx, queries []int, rng *rand.Rand) (rows [][]float64, ok bool)
}

// A ScreeningModel computes a document's distances in two steps: first fast
// values within a bound eps of Distances' values (single precision, say),
// exact for the terms the caller names; then Distances' values for the terms
// the caller asks for. The evaluation names the document's terms (the
// relevant ones) and asks for exactly the terms whose value lies within eps of
// a relevant term's value in some ranking; every other term is then on the
// same side of every relevant term with either value, so each rank, and every
// figure, is the one Distances gives (RanksTo compares a term's distance only
// with the relevant terms').
type ScreeningModel interface {
	Model
	// ScreenDistances fills dst like Distances(ctx, queries, rng, dst) would,
	// each value within eps of Distances' and equal to it (bit for bit) in the
	// columns of the terms of exact and of queries. refine(terms) overwrites
	// the columns of terms with Distances' values; it may be called once, after
	// which dst is not used by the model. ok = false means no screening for
	// this call (dst untouched, nothing drawn from rng): call Distances.
	ScreenDistances(ctx, queries, exact []int, rng *rand.Rand, dst []float64) (eps float64, refine func(terms []int), ok bool)
}

// A ListModel ranks a document's vocabulary under the extended protocol by a
// score of its own instead of Eq. 9's minimum over the query terms: a
// top-N recommender's score of each term given the document's other terms
// (EASE^R's Σ_{t ∈ δ} B[t, j], RP3beta's and item-kNN's sums of
// similarities). It is not the paper's protocol, so a report marks the model
// as ranked by its own score. ListTo fills dst (length V) with the value by
// which term j is ranked, smaller first, for the document whose queries are
// queries (its terms, or the reduced terms under an incomplete context) and
// whose local context is ctx; a query term's own value must leave out the
// term itself, as Eq. 9's t̂ ≠ τ_j does. Like Distances it must be safe for
// concurrent use, each caller with its own dst and rng. Under the priming
// protocol (Eq. 8) a ListModel is ranked by Distances like any model.
type ListModel interface {
	Model
	ListTo(dst []float64, ctx, queries []int, rng *rand.Rand)
}

// A SharedResultModel says which models give its results: two models of one
// comparison trial with the same non-empty ResultKey give the same Result
// under the same options and documents (Siamese-CE kept as CE's network, say),
// so the trial evaluates one and reports the result for both.
type SharedResultModel interface {
	Model
	ResultKey() string
}
