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
// (Target: the listed units and whether the target is BoW(δ) or its complement), so
// no dense K×|Γ| target matrix exists. ŷ is clamped to [-1+Eps, 1-Eps], Eps = 1e-12,
// inside logarithms and divisions. See PredictionLoss (and PredictionLossDense, a
// direct transcription used by the tests).
//
// # Sampled prediction loss (large |Γ|, issue 7)
//
// ColumnSample.Draw picks the output units of a batch: a uniform sample U of M units
// (without replacement) plus every listed unit of the batch. SampledPredictionLoss
// scores, for example k, its listed units exactly and the unlisted ones by the units
// of U with the Horvitz-Thompson weight |Γ|/M (each unit is in U with probability
// M/|Γ|):
//
//	L̂ = Σ_k [ Σ_{j∈Idx_k} ℓ_k[j] + |Γ|/M Σ_{j∈U∖Idx_k} ℓ_k[j] ],   E[L̂] = L_P,  E[∇L̂] = ∇L_P,
//
// ℓ_k[j] the Eq. 5 term of unit j. MLP.ForwardCols computes the output layer for
// those units only, so an example costs O(M + batch·|δ|), not O(|Γ|).
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
// Trainer does all of this for a batch: it cuts the batch into DefaultParts = 2
// contiguous parts processed by concurrent goroutines with their own workspaces and
// gradient buffers and sums the part gradients in part order (deterministic: same
// inputs, same bytes). PredictionGrad is stage 1 (Eq. 5), SiameseGrad stage 2
// (Eq. 7); the Sampled… variants use the sampled Eq. 5.
//
// # Sparse auto-encoder and pre-training (Appendix A.1)
//
//	z = tanh(W_1 x + b_1),  x̃ = tanh(W_2 z + b_2),
//	L_A = 1/K Σ_k [‖x̃_k - x_k‖² + α Σ_q sqrt(z_k[q]² + ε)] + λ/2 (‖W_1‖² + ‖W_2‖²),
//
// minimised by batch L-BFGS (gonum optimize.LBFGS; the paper used minFunc). Our
// reading of §5.2 "the sparsity factor is 2, weight decay is 0.02": α = 2 and λ =
// 0.02; A.1 writes L_A without the decay term and without a value of ε, so we add
// the usual λ/2 ‖W‖² on weights only and take ε = 1e-4. A.1 writes a sum over the
// examples and says "averaged": we average. Pretrain trains layer h's auto-encoder on
// z_{h-1} for h = 1..H-1 (greedy layer-wise, §4.3.2) and keeps the encoders; the
// output layer keeps its random initialisation.
//
// # SGD (A.4)
//
// θ ← θ - η_t ∇L, η multiplied by 0.95 every DecayEvery = 200 steps by default (SGD);
// momentum is available but off by default.
//
// # Initialisation
//
// NewMLP draws W_h from U(-r, r), r = sqrt(6/(in+out)), and sets b_h = 0.
//
// # Speed
//
// All matrix products go through three routines (gemm.go): A·B, A·Bᵀ and Aᵀ·B, each
// storing or accumulating into C. On amd64 with AVX2 and FMA (golang.org/x/sys/cpu)
// they run a Goto/BLIS-style blocked product (gemmAsm) around a register-blocked
// micro-kernel in assembly (kernel_amd64.s): 8×16 float64 tiles with AVX-512F when
// the CPU has it, else 6×8 tiles with AVX2/FMA; depth blocks of 128 for both keep a
// B panel in L1 and give a product the same bits on either kind of machine. A is
// read in place with any row and depth stride (only a partial last row panel is
// copied); B is read in place when row-major and otherwise packed into
// zero-padded panels; the AVX-512 kernel writes edge tiles with masked stores. The
// Trainer packs every W_h once per call for the forward passes of all its parts.
// Elsewhere, or with the build tag purego, pure-Go loops run. Tests compare the two.
//
// The forward tanh runs over whole rows in assembly (tanhAddAVX2, and an 8-lane
// AVX-512 twin with bit-identical results): Go's rational approximation (Cephes)
// below |x| = 0.625, 1 - 2/(exp(2|x|)+1) above, exp by Cody-Waite reduction and a
// degree-13 polynomial; within 1e-15 relative of math.Tanh (tested over 1e-300..1e3
// and the special values).
//
// Trainer steps avoid passes over memory: Eq. 5's gradient is folded into the output
// tanh derivative (δ_H = wNeg(1+ŷ) or -wPos(1-ŷ) for unclamped entries, the product
// as written otherwise) in one vectorised pass (foldRowAVX2) that also forms the
// log-sum of the row with one logarithm (products renormalised by their binary
// exponent; NaN still reaches the loss); the first backward pass of a part
// overwrites its gradient instead of clearing it; ∂L/∂W_1, the largest block at a
// large input (2000×100), is formed once over the whole batch and both Siamese
// members from the parts' δ_1, each part computing a range of input columns, so that
// it is neither accumulated per part nor reduced; the other layers' part gradients
// are summed in part order over disjoint ranges in parallel. The weights are packed
// by all parts concurrently, and SGD.Step updates long vectors in two concurrent
// halves.
//
// Results differ between the assembly and pure-Go paths, and between the AVX2 and
// AVX-512 products, in the last bits (summation order); each path is deterministic
// (same inputs, same bytes; tested) and independent of goroutine scheduling.
package nn
