// Package nn is the neural-network toolkit of the paper's subnetwork (§4.3, Appendix
// A): a tanh multi-layer perceptron on one flat parameter vector, the κ-weighted
// prediction loss of Eq. 5 (exact and sampled), the Siamese distance loss of Eq. 6,
// the sparse auto-encoder of Appendix A.1 trained with L-BFGS, and mini-batch SGD
// (A.4), each loss with an analytic gradient checked against finite differences.
//
// # Network (§4.3)
//
//	z_0 = x,   z_h = tanh(W_h z_{h-1} + b_h),  h = 1..H,   CE = z_{H-1},  ŷ = z_H.
//
// MLP.Params holds, for h = 1..H, W_h (Sizes[h]×Sizes[h-1], row-major, out×in) then
// b_h. Batches are matrices whose rows are examples, so a layer computes
// Z_h = tanh(Z_{h-1} W_hᵀ + 1 b_hᵀ). ForwardTo stops at any layer (CE inference needs
// layers 1..H-1 only); ForwardCols computes the output layer for a subset of output
// units only. Backward accepts ∂L/∂z_h for any set of layers at once (Eq. 5 acts on
// z_H, Eq. 6 on z_{H-1}) and accumulates ∂L/∂θ into a flat vector of the same layout
// (Eq. A.2-A.4):
//
//	δ_h = (∂L/∂z_h + δ_{h+1} W_{h+1}) ⊙ (1 - z_h²),  ∂L/∂W_h = δ_hᵀ Z_{h-1},  ∂L/∂b_h = 1ᵀ δ_h.
//
// # Prediction loss (Eq. 5)
//
//	L_P = -1/(2K|Γ|) Σ_k Σ_j [κ_k (1+y_k[j]) log(1+ŷ_k[j]) + (1-κ_k)(1-y_k[j]) log(1-ŷ_k[j])],
//
// y ∈ {-1,+1}, κ_k = |{j: y_k[j]=+1}|/|Γ|, K the batch size; targets are sparse
// (Target). See PredictionLoss.
//
// # Siamese loss (Eq. 6)
//
//	L_S = 1/N Σ_n [I1 (E - β(1-D))² + I2 ρ (E - β(1-D))² + I3 D (E - β)²],
//	E = ‖CE(x¹) - CE(x²)‖₂,  D = exp(-λ/2 · Σ_c (l¹[c]-l²[c]) log(l¹[c]/l²[c])),
//
// β = √dim(CE), ρ = 0.5 by default. Eq. 7, L = L_P(X¹) + L_P(X²) + α L_S, is formed by
// the caller: run both members forward, take PredictionLoss of each and SiameseLoss of
// the pair, scale the Siamese gradients by α and call Backward once per member with
// grads[H] (prediction) and grads[H-1] (α·Siamese) together.
//
// # SGD (A.4)
//
// θ ← θ - η_t ∇L, η multiplied by 0.95 every 200 steps by default (SGD).
package nn
