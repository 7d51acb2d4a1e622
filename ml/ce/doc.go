// Package ce is the paper's model: it turns a corpus into training examples (§4.3.1),
// trains the subnetwork for prediction (stage 1, Eq. 5) and the Siamese architecture
// for distance (stage 2, Eq. 6-7) with automatic early stopping on validation
// extended-priming MAP, computes concept embeddings CE(τ|δ) for any term in any context, embeds OOV terms
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
//   - Eq. 5, the κ-weighted prediction loss: nn.Trainer.PredictionGrad, or its
//     unbiased sampled estimate nn.Trainer.SampledPredictionGrad for large
//     vocabularies (Config.OutputSample; automatic above SampleAbove = 3000
//     terms), driven by stepper.grad1 (step.go).
//   - Eq. 6, the Siamese loss, and D = exp(−λ/2·KL_sym(l¹,l²)) from the raw topic
//     vectors: nn.SiameseLoss (inside nn.Trainer.SiameseGrad) and
//     nn.ContextSimilarity (stepper.fill2); pairs I1:I2:I3 = 1:1:2 in
//     trainSet.samplePairs.
//   - Eq. 7, L = L_P(X¹) + L_P(X²) + α·L_S(X¹,X²) with tied weights:
//     nn.Trainer.SiameseGrad (or SampledSiameseGrad), driven by stepper.grad2
//     (finite-difference test of the real steps: TestStepGradients).
//   - CE(τ|δ) = z_{H−1}(x(τ,δ)) and e(τ,τ_i|δ) = ‖CE(τ|δ) − CE(τ_i|δ)‖₂ (Eq. 8):
//     embedder and evalModel.
//   - OOV (§4.4): feature-based (t(τ_oov) by features.TermFeatures.OOVTo; the most
//     related term is the FURTHEST, as the paper stipulates) and concept-based
//     (centroid) in oovModel.
//
// Training (Train): features → LDA (|Φ| automatic unless Config.Topics; see
// fitContext for the rule) → stage 0 (nn.Pretrain, sparse auto-encoders with
// L-BFGS on 2,000 examples, 30 iterations per layer, sparsity weight 0.01 — see
// Config.Sparsity — A.1) → stage 1 (mini-batch
// SGD with momentum and ×0.95 decay over epochs of 120,000 examples, early
// stopping on validation extended-priming MAP (design.md, decision 8; or
// priming P@2, Config.EarlyStop), best weights kept → "ce") → stage 2 (α, λ
// chosen by short pilot runs on the same validation criterion unless set;
// then early-stopped training → "siamese-ce"). Stages normally end by early
// stopping (Config.Patience) or their epoch limits, which count examples and
// evaluations, never seconds; a wall-clock limit (Config.MaxTime) applies only
// when the caller sets one. Every
// mini-batch goes through nn.Trainer, which splits it into two fixed parts run
// concurrently and reduces their gradients in order, so a seed determines the
// model.
//
// Pairs of stage 2 (design.md, decision 7): half of the I1 pairs are two terms of one
// training document and half of the I3 pairs take their negative example from
// the positive example's document (Config.WithinDoc, WithinDocI3 = 0.5,
// recorded in Info). Validation priming chose this default over the paper's
// purely random pairing, and TestWithinDocPairs keeps checking that it does
// not fall behind it; TestSampledLossOnMTGJamendo checks that the sampled
// Eq. 5 scores like the exact loss. The measurements behind these and the
// other defaults are in docs/quality-notes.md (D12, D13).
//
// Inference (infer.go) computes CE(τ|δ) for all vocabulary terms of a context
// at once: the term part of layer 1 and its tanh are precomputed per model, so
// layer 1 costs one division per (term, unit) by the tanh addition theorem,
// and layers 2..H-1 run through nn's batched forward pass.
//
// Scale (issue 7). Above SampleAbove = 3,000 terms Eq. 5 is sampled
// (Config.OutputSample); above LargeAbove = 1,000 terms the rows of Eq. 2 are
// smoothed (Config.TermSmooth) and scaled to unit length before the PCA
// (Config.TermNorm) and the network is 100-100-50 (Config.Hidden): the sampled
// loss keeps an example's cost from growing with |Γ|, and the other three keep
// the co-occurrence neighbourhoods that the scaled input of a long-tailed
// vocabulary loses (docs/quality-notes.md, D1-D5, D13). Training times and
// memory per corpus are in docs/suite.md.
//
// Model file (codec.go): magic "TLMODEL\x00", format version, payload length,
// payload, SHA-256 of the payload; written atomically (temporary file in the
// same directory, fsync, rename).
package ce
