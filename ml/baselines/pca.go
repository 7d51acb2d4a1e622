package baselines

import (
	"context"
	"fmt"
	"sync"

	"github.com/taglens/taglens/ml/features"
)

// PCAOptions tunes FitPCA. The zero value means the defaults.
type PCAOptions struct {
	// Dim is the dimension of the reduced space. Zero means LSA's dimension on
	// the same training documents (paper §6.2.5: PCA, InfoTheo and Skip-gram share
	// the dimension of LSA's 90 % POV); pass LSA.Dim when LSA is already fitted.
	Dim int
	// Seed seeds the randomized PCA (large vocabularies).
	Seed uint64
}

// lsaDim returns dim, or LSA's dimension on train when dim ≤ 0. PCA,
// InfoTheo and Skip-gram each ask for it on the same documents; on a large
// vocabulary the LSA fit behind it is a randomized SVD of tens of seconds, so
// the dimension is remembered for the last few (documents, v, seed) seen.
func lsaDim(ctx context.Context, train [][]int, v, dim int, seed uint64) (int, error) {
	if dim > 0 {
		return dim, nil
	}
	key := lsaDimKey{docs: fingerprint(train), n: len(train), v: v, seed: seed}
	lsaDims.mu.Lock()
	d, ok := lsaDims.m[key]
	lsaDims.mu.Unlock()
	if ok {
		return d, nil
	}
	l, err := FitLSA(ctx, train, v, LSAOptions{Seed: seed})
	if err != nil {
		return 0, err
	}
	return l.Dim, nil
}

// rememberLSADim records the dimension of an LSA fitted with the default
// options, so that PCA, InfoTheo and Skip-gram on the same documents do not fit
// it again (FitLSA calls it).
func rememberLSADim(train [][]int, v int, seed uint64, dim int) {
	key := lsaDimKey{docs: fingerprint(train), n: len(train), v: v, seed: seed}
	lsaDims.mu.Lock()
	if len(lsaDims.m) >= 8 {
		clear(lsaDims.m)
	}
	lsaDims.m[key] = dim
	lsaDims.mu.Unlock()
}

type lsaDimKey struct {
	docs uint64
	n, v int
	seed uint64
}

var lsaDims = struct {
	mu sync.Mutex
	m  map[lsaDimKey]int
}{m: map[lsaDimKey]int{}}

// fingerprint is a 64-bit FNV-1a hash of the documents' term indices, with
// document boundaries.
func fingerprint(docs [][]int) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for _, d := range docs {
		for _, t := range d {
			h = (h ^ uint64(t+1)) * prime
		}
		h *= prime // the boundary hashes a 0; terms hash as t+1 ≥ 1
	}
	return h
}

// PCA is the aggregation + PCA baseline (paper §2.1 and §6.2.5) in the paper's best
// combination: the tf-idf re-weighted document-term matrix, co-occurrence
// aggregation into the term-to-term matrix T of Eq. 2 (T_ij = <u(τ_i), u(τ_j)>),
// PCA of T's rows (the terms are the observations) reduced to Dim components,
// and cosine distance between the terms' (unscaled) principal-component scores.
// For vocabularies above features.DefaultExactMaxTerms the PCA is the randomized
// one on the sparse T (no dense |Γ|×|Γ| matrix). PCA is non-contextual.
type PCA struct {
	vectorModel
	Dim        int
	Explained  float64 // fraction of T's row variance kept
	Randomized bool
}

// FitPCA fits the PCA baseline on the encoded training documents (term indices
// in [0, v)). It stops with ctx.Err() when ctx is cancelled.
func FitPCA(ctx context.Context, train [][]int, v int, o PCAOptions) (*PCA, error) {
	if err := checkTrain(NamePCA, train, v); err != nil {
		return nil, err
	}
	dim, err := lsaDim(ctx, train, v, o.Dim, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("baselines: pca: %w", err)
	}
	_, _, t := features.TermMatrix(train, v)
	p, err := features.FitPCASparseContext(ctx, t, pcaOpts(v, dim, o.Seed))
	if err != nil {
		return nil, fmt.Errorf("baselines: pca: %w", err)
	}
	return &PCA{
		vectorModel: vectorModel{TermVectors: NewTermVectors(v, p.Out, scoresOf(p, t)), name: NamePCA},
		Dim:         p.Out,
		Explained:   p.Explained(),
		Randomized:  p.Randomized,
	}, nil
}

// Tuning reports the dimension (eval.Tuned).
func (m *PCA) Tuning() map[string]any {
	return map[string]any{"dim": m.Dim, "explained_variance": m.Explained, "randomized": m.Randomized,
		"preprocessing": "tfidf", "aggregation": "co-occurrence", "distance": "cosine"}
}
