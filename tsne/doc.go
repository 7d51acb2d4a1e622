// Package tsne embeds high-dimensional points in two dimensions with t-SNE (van der
// Maaten & Hinton 2008): exact gradients for small inputs and accelerated
// approximations for large ones, deterministic for a seed. It depends on gonum only.
//
// # Objective (van der Maaten & Hinton 2008)
//
//	p_{j|i} = exp(−β_i‖x_i−x_j‖²) / Σ_{k≠i} exp(−β_i‖x_i−x_k‖²)      (Eq. 1; β_i by bisection
//	                                                                  so that 2^{H(P_i)} = perplexity)
//	p_ij    = (p_{j|i} + p_{i|j}) / 2n                                 (Sec. 3.1)
//	q_ij    = w_ij / Z,  w_ij = (1+‖y_i−y_j‖²)⁻¹,  Z = Σ_{k≠l} w_kl      (Eq. 4)
//	C       = KL(P‖Q) = Σ_{i≠j} p_ij ln(p_ij / q_ij)                    (Eq. 2)
//	∂C/∂y_i = 4 Σ_j (p_ij − q_ij)(y_i − y_j) w_ij                       (Eq. 5)
//	        = 4 (Σ_j p_ij w_ij (y_i−y_j) − (1/Z) Σ_j w_ij² (y_i−y_j))    (attractive − repulsive)
//
// # Methods
//
//   - Exact: dense P over all pairs, exact gradient and KL; O(n²) per iteration
//     (exactGrad).
//   - BarnesHut (van der Maaten 2014): P restricted to the ⌊3·perplexity⌋
//     nearest neighbours — exact (vantage-point tree, vptree.go) below
//     ApproxMinAuto points, approximate above (random projection trees and
//     neighbour descent, knnapprox.go); repulsion and Z by a quadtree whose
//     cells of side s at distance r are summarised when s/r < θ (bh.go).
//   - FFT (Linderman et al. 2019, FIt-SNE): the same sparse P; the repulsive sums
//     through the kernel (1+‖Δ‖²)⁻² with charges (1, y₁, y₂, ‖y‖²), evaluated by
//     cubic Lagrange interpolation on an equispaced grid (spacing ≤ 0.4) and a
//     zero-padded 2-D FFT convolution (fftgrad.go, fft.go).
//
// Auto picks Exact below ExactMaxAuto points, BarnesHut below FFTMinAuto and FFT
// above. Memory of the sparse methods is O(n·k); no n×n array is made.
//
// # Wide inputs
//
// Inputs of more than 256 dimensions are first replaced by their scores on at
// most 50 principal axes, computed by randomized SVD (Halko, Martinsson &
// Tropp 2011; pca.go) in O(n·d) memory; no d×d matrix is formed. Below 51
// points this keeps every distance; above, the least-variance directions are
// dropped. Transform projects new points on the same axes.
//
// # Errors and cancellation
//
// Non-finite input, and values so large that squared distances could
// overflow, are InputErrors naming the row and column. An embedding with a
// non-finite coordinate is never returned (ErrDiverged). Every long loop
// (tree build, affinities, SVD, gradient iterations) checks the context.
//
// # Optimisation
//
// As in scikit-learn and openTSNE: PCA initialisation scaled to standard deviation
// 1e-4, early exaggeration 12 for 250 iterations with momentum 0.5, then momentum
// 0.8; per-coordinate gains (+0.2 when the gradient changes sign against the
// update, ×0.8 otherwise, floor 0.01); learning rate max(n/12, 50) applied to
// ∂C/∂y / 4 (openTSNE's convention). Work is split into fixed blocks of points and
// partial sums are reduced in block order, so results are bit-identical for any
// number of goroutines.
//
// Transform adds points to an existing embedding without moving it (openTSNE's
// transform): median-of-neighbours initialisation, then each new point is
// optimised alone against the fixed reference points.
package tsne
