// Package features computes the model's inputs and targets (paper §3): the tf-idf
// re-weighted document-term matrix with idf(τ) = log(|Δ|/(1+df(τ))), the term features
// t(τ) of Eq. 2 (aggregation by dot products of usage vectors), the BoW targets of
// Eq. 4, the OOV term features of §4.4, and the PCA decorrelation plus linear scaling
// to (-1, +1) fitted on training data only (§5.2).
package features
