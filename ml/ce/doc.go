// Package ce is the paper's model: it turns a corpus into training examples (§4.3.1),
// trains the subnetwork for prediction (stage 1, Eq. 5) and the Siamese architecture
// for distance (stage 2, Eq. 6-7) with automatic early stopping on validation P@2,
// computes concept embeddings CE(τ|δ) for any term in any context, embeds OOV terms
// (§4.4) and reads and writes model files.
//
// Where each formula lives:
//
//   - Inputs x(τ,δ) = (t(τ), l(δ)) (§4.2): t(τ) of Eq. 2 and its PCA + (−1,+1)
//     scaling come from ml/features (FitTerms); l(δ) = p(φ|δ) of Eq. 3 from
//     ml/topic (FitLDA, InferVBTo), scaled by a PCA fitted on the training
//     contexts (Train, Model.contextTo).
//   - Examples (§4.3.1): trainSet.epochExamples (every positive (τ ∈ δ, δ) and one
//     negative (τ ∉ δ, δ) per positive), targets BoW(δ) / its complement in
//     {−1,+1} (trainSet.targetsTo, nn.Target), κ_k (nn.Target.Kappa).
//   - Eq. 5, the κ-weighted prediction loss: nn.PredictionLoss (stage1Loss).
//   - Eq. 6, the Siamese loss, and D = exp(−λ/2·KL_sym(l¹,l²)) from the raw topic
//     vectors: nn.SiameseLoss and nn.ContextSimilarity; pairs I1:I2:I3 = 1:1:2 in
//     trainSet.samplePairs.
//   - Eq. 7, L = L_P(X¹) + L_P(X²) + α·L_S(X¹,X²) with tied weights: siameseLoss
//     (finite-difference test TestSiameseLossGradient).
//   - CE(τ|δ) = z_{H−1}(x(τ,δ)) and e(τ,τ_i|δ) = ‖CE(τ|δ) − CE(τ_i|δ)‖₂ (Eq. 8):
//     embedder and evalModel.
//   - OOV (§4.4): feature-based (t(τ_oov) by features.TermFeatures.OOVTo; the most
//     related term is the FURTHEST, as the paper stipulates) and concept-based
//     (centroid) in oovModel.
//
// Training (Train): features → LDA (|Φ| automatic unless Config.Topics) → stage 0
// (nn.Pretrain, sparse auto-encoders with L-BFGS, A.1) → stage 1 (mini-batch SGD
// with momentum and ×0.95 decay, early stopping on validation P@2 of the priming
// protocol, best weights kept → "ce") → stage 2 (α, λ chosen by short pilot runs
// on validation P@2 unless set; then early-stopped training → "siamese-ce").
// Every stage also stops at the wall-time Config.Budget. A mini-batch is split
// over two goroutines in fixed halves, and gradients are reduced in order, so a
// seed determines the model.
//
// Model file (codec.go): magic "TLMODEL\x00", format version, payload length,
// payload, SHA-256 of the payload; written atomically (temporary file in the
// same directory, fsync, rename).
package ce
