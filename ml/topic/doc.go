// Package topic fits the topic models that give a document's local context
// (paper §3.2, Eq. 3) and two of the paper's baselines (§2.3, §6.2.5).
//
// # LDA
//
// FitLDA fits latent Dirichlet allocation (Blei, Ng & Jordan 2003) with
// symmetric priors α (document-topic, B⁰ in the paper) and β (topic-term, B) by
// collapsed Gibbs sampling (Griffiths & Steyvers 2004):
//
//	p(z_i=k | z_-i, w) ∝ (n_dk + α) (n_kw + β) / (n_k + Vβ)
//
// using the SparseLDA decomposition of Yao, Mimno & McCallum (2009) into a
// smoothing bucket αβ/(n_k+Vβ), a document bucket n_dk β/(n_k+Vβ) and a term
// bucket (α+n_dk) n_kw/(n_k+Vβ), whose sizes are the numbers of topics of the
// document and of the term rather than K. Topic-term distributions
//
//	p(τ_w|φ_k) = (n_kw + β) / (n_k + Vβ)
//
// are averaged over samples taken every SampleLag sweeps after burn-in.
// Defaults (α = 0.1, β = 0.01) are chosen for short tag documents; see LDAConfig.
//
// The local context of a document δ is p(φ|δ) (Eq. 3), computed for any
// document with the topics fixed: LDA.InferTo by Gibbs fold-in (stochastic, the
// caller's rng), LDA.InferVBTo by the variational E-step (deterministic).
//
// # Number of topics
//
// SelectK (used by FitLDA when LDAConfig.K is zero) fits each K of a small grid
// on 90 % of the documents and measures document-completion perplexity on the
// rest (LDA.Perplexity):
//
//	perplexity = exp(−Σ_held log Σ_k θ_k p(τ_w|φ_k) / N_held)
//
// with θ folded in from the other half of each held-out document. Because
// perplexity often keeps falling slowly with K, it picks the smallest K within
// SelectConfig.Tolerance (default 2 %) of the best.
//
// # PLSA
//
// FitPLSA fits the aspect model p(d,w) = p(d) Σ_k p(φ_k|d) p(τ_w|φ_k) (Hofmann
// 1999) by EM until the log-likelihood converges; PLSA.InferTo folds in a new
// document by EM on p(φ|δ) with p(τ|φ) fixed.
//
// # Term distance, Eq. 1
//
// TermKL is the paper's Eq. 1, the distance between two terms under a
// document's topic distribution θ(δ), used by the LDA and PLSA baselines:
//
//	KL(τ1, τ2|θ(δ)) = Σ_c θ_c / p(τ1) · (p(τ1|φ_c) − p(τ2|φ_c)) · log(p(τ1|φ_c)/p(τ2|φ_c)).
package topic
