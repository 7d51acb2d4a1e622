// Package features computes the model's inputs and targets (paper §3): the tf-idf
// re-weighted document-term matrix with idf(τ) = log(|Δ|/(1+df(τ))), the term features
// t(τ) of Eq. 2 (aggregation by dot products of usage vectors), the BoW targets of
// Eq. 4, the OOV term features of §4.4, and the PCA decorrelation plus linear scaling
// to (-1, +1) fitted on training data only (§5.2).
//
// # Formulas and where they live
//
//   - idf (§3.1): idfOf in tfidf.go, idf(τ) = log(|Δ| / (1 + df(τ))); tf is binary,
//     so tfidf(τ, δ) = idf(τ)·[τ ∈ δ] and DocTerm(docs, v, idf) is the tf-idf matrix Υ.
//   - Eq. 2 (§3.1): TermMatrix / Cooccurrence in terms.go and sparse.go. Because tf is
//     binary, T(τ_i, τ_j) = <u(τ_i), u(τ_j)> = idf_i·idf_j·C_ij with C_ij the number of
//     training documents holding both terms, so T = ΥᵀΥ is built sparsely in
//     O(Σ_δ |δ|²) without a dense |Δ|×|Γ| matrix. Row i of T is t(τ_i).
//   - Eq. 4 (§3.3): BoW returns the support (sorted, unique indices) of BoW(δ);
//     Complement its zero entries; BoWTo the dense ±1 target for a tanh output.
//   - §4.4 feature-based OOV: TermFeatures.OOVRaw documents the idf reading.
//   - §5.2 decorrelation and scaling: Projection (pca.go): z = (x − μ)ᵀW, then
//     s = 2(z − lo)/(hi − lo) − 1 per component, μ, W, lo, hi from training data only.
//
// # Term features and the PCA paths
//
// FitTerms fits a TermFeatures: idf, T, and a Projection of T's rows (the |Γ|
// vocabulary terms are the observations; see TermFeatures for why). With
// Method Auto the path depends on |Γ|: up to DefaultExactMaxTerms (1000) terms the
// exact thin SVD of the dense centred T keeps every component with non-negligible
// variance (σ_k > 1e-9·σ_1); above it, a randomized truncated SVD (Halko,
// Martinsson & Tropp 2011) of the implicitly centred sparse T keeps
// PCAOptions.Dim components (default 200), so no dense |Γ|×|Γ| matrix exists and
// the input width no longer grows with |Γ|. Either path can be forced with
// Method Exact or Randomized to measure the other's effect.
//
// All vocabulary terms' scaled features are precomputed once (TermFeatures.Scaled,
// V×Dim), so inference only looks rows up.
//
// # Local context part
//
// FitPCA fits the same Projection type to a dense matrix whose rows are the
// training documents' LDA topic vectors p(φ|δ) (Eq. 3); TransformTo applies it to
// one new document's vector. Topic proportions sum to one, so one component has
// zero variance and is dropped.
//
// # Serialization
//
// Projection and TermFeatures are plain structs with exported fields (their state
// is exactly those fields) and also implement encoding.BinaryMarshaler /
// BinaryUnmarshaler with a stable, versioned little-endian format (codec.go).
//
// All fitted types are immutable after fitting and safe for concurrent use.
package features
