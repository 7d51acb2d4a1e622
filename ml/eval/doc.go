// Package eval measures how well a model captures contextualized term relatedness
// by semantic priming (paper §6.1): the priming protocol (Eq. 8), the extended
// priming protocol (Eq. 9), P@K (Eq. 10), AP and MAP (Eq. 11), precision at the 11
// standard recall levels (Eq. 12) and the AUC of that curve, over the within-corpus,
// cross-corpora, incomplete-context and OOV settings, with trials, standard errors
// and Student's t-tests.
//
// # Protocols (protocol.go)
//
// Priming, Eq. 8: for a document δ and each query term τ ∈ δ, every vocabulary term
// τ_i is ranked by e(τ, τ_i | δ), ties by increasing term index; the list is scored
// against the ground truth δ (the query itself included, as in the paper).
//
// Extended priming, Eq. 9: one list per document ranks every τ_i by
// min_{t̂ ∈ δ, t̂ ≠ τ_i} e(t̂, τ_i | c), c = δ for contextual models. The condition
// t̂ ≠ τ_i removes the zero-distance self match of the document's own terms.
//
// Models that are not Contextual are evaluated with the extended protocol only
// (§6.2.5); Evaluate returns ErrNotContextual otherwise.
//
// A ListModel (a top-N recommender such as EASE^R ranked by its own score) is
// ranked under the extended protocol by the list it gives for the document
// instead of Eq. 9's minimum: not the paper's protocol, and the reports say
// so; the ground truth, the leave-one-out rule (a document's term is scored
// without itself) and every metric are the same.
//
// # Metrics (metrics.go)
//
//	P@K(x)  = |Prime_K(x) ∩ δ| / K,  K = 1..10;        P@K(X) = mean over X   (Eq. 10)
//	AP(x)   = Σ_{K=1}^{|δ|} P@K(x) / |δ|;              MAP(X) = mean over X   (Eq. 11)
//	Precision(ℓ|x), ℓ = 0.0, 0.1, ..., 1.0;  Precision(ℓ|X) = mean over X      (Eq. 12)
//	AUC     = trapezoid rule over the 11 points of Precision(ℓ|X)
//
// Precision(ℓ|x) uses the standard interpolation of information retrieval (Manning,
// Raghavan & Schütze 2008, §8.4): the maximum precision over all cut-offs K whose
// recall is at least ℓ. Reports state it (Interpolation). The ranks of the |δ|
// ground-truth terms are found by counting (O(V·|δ|)), not by sorting V terms.
//
// # Settings
//
// Within-corpus and cross-corpora (§6.2.1-6.2.2) differ only in the documents given
// to Evaluate (InVocabulary selects a foreign corpus's fully in-vocabulary
// documents). The incomplete local context (§6.2.3) is Options.Missing: context and
// queries are the reduced document δ̃, the ground truth is δ (a WholeContextModel,
// CRBM, keeps δ as its context, §6.5). The OOV setting
// (§6.2.4) is EvaluateOOV, priming protocol only.
//
// # Determinism and trials
//
// Each document draws from its own PCG stream seeded by (trial seed, document index),
// workers take fixed strided partitions and results are reduced in document order,
// so a trial's figures are bit-identical for any number of workers. Summarize turns
// the Results of several trials into means and standard errors; ComputePValues runs
// Student's two-sample t-test (pooled variance, two-sided) between the best model and
// the runner-up on each metric.
package eval
