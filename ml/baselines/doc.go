// Package baselines implements the eight models the paper compares against
// (§6.2.5), each behind eval.Model:
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
// Train, Skip and Names (registry.go) are the one place that says how the
// evaluator and the web app build each baseline and when a setting leaves one
// out. Above 1,000 terms none builds a dense |Γ|×|Γ| matrix.
package baselines
