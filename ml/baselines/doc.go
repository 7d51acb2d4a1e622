// Package baselines implements the eight models the paper compares against
// (§6.2.5), two later count-based embeddings and four top-N recommenders it
// does not, each behind eval.Model:
//
//   - Random: a uniformly random ranking (one draw per term per document).
//   - LSA: eigen-decomposition of the tf-idf Gram matrix keeping 90 % of the
//     variance; term vectors U·Σ; cosine distance.
//   - PCA: tf-idf re-weighting, co-occurrence aggregation (the T matrix of
//     Eq. 2), PCA to LSA's dimension; cosine distance.
//   - InfoTheo: Mandel et al. (2011) smoothing of each document's BoW with its
//     terms' top-k associates weighted α, then as PCA; k ∈ {1,3,5} and
//     α ∈ {0.1..0.5} chosen by training P@2 of the extended protocol.
//   - Skip-gram: our own skip-gram with negative sampling on shuffled term
//     order; window and representation (input, input+output vectors) chosen
//     by training P@2; cosine distance.
//   - LDA and PLSA: the Eq. 1 distance (ml/topic) under the folded-in topic
//     mixture of the document, with the model's topic count.
//   - CRBM: conditional RBM trained by CD-1 with the training document's
//     one-hot condition; relatedness = mean visible activation of Gibbs chains
//     with the query clamped on; training documents only.
//
// The two modern baselines (not in the paper) learn from the counts #(w, c)
// of distinct term pairs within a training document and are, like the global
// models, non-contextual, evaluated with the extended protocol only, and tuned
// by training P@2 as InfoTheo is:
//
//   - PPMI-SVD (Levy, Goldberg & Dagan 2015): shifted positive PMI with
//     context distribution smoothing (α = 0.75), truncated SVD, term vectors
//     U_d·Σ_d^p; shift k ∈ {1, 5} × dimension × p ∈ {0, 0.5, 1} by training P@2.
//   - GloVe (Pennington, Socher & Manning 2014): our own AdaGrad on the Eq. 8
//     cost with the Eq. 9 weighting (x_max scaled to the counts), vectors
//     w + w̃; dimension × epoch checkpoint by training P@2.
//
// Their dimension grid is LSA's dimension (capped at 200), 50, 100 and 200.
//
// Four more come from top-N recommendation, where "given a document's tags,
// rank the tags that go with them" is item recommendation (the document a
// user, its tags the items). They are what a practitioner tries first, and
// Dacrema, Cremonesi & Jannach (RecSys 2019) found such tuned simple models
// ahead of most neural recommenders. Each is tuned by the extended-priming
// MAP of validation documents (training documents held out when the split
// has none), since their settings trade fit against generalisation:
//
//   - ease: EASE^R (Steck 2019), B = I − P·diag(1/diag(P)), P = (XᵀX + λI)⁻¹,
//     ranked under Eq. 9 with −B[t, j] as the distance from t to j, as every
//     other baseline; λ over a log grid. The dense inverse is blocked on nn's
//     GEMM kernels (spdinv.go); above MaxDenseTerms terms it is left out.
//   - ease-score: the same B ranked by EASE^R's own score Σ_{t ∈ δ} B[t, j],
//     how it is used in practice (eval.ListModel): not Eq. 9.
//   - rp3beta (Paudel et al. 2017) and itemknn (asymmetric cosine with
//     shrinkage): sparse neighbourhoods ranked by their own sum of
//     similarities (eval.ListModel), not Eq. 9.
//
// Every baseline learnt from data is built in one form, FitX(ctx, train, v,
// XOptions): the training documents (term indices in [0, v)), or for the
// recommenders, which also tune on validation documents, FitX(ctx, Data,
// XOptions); the options are passed by value and their zero value means the
// defaults. Random (NewRandom) learns nothing. The tuning grids are the
// package's own; an option fixes a knob instead of searching it.
//
// Train, Skip and Names (registry.go) are the one place that says how the
// evaluator and the web app build each baseline and when a setting leaves one
// out. Above 1,000 terms none but EASE^R builds a dense |Γ|×|Γ| matrix.
package baselines
