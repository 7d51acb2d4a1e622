package server

import (
	"context"

	"github.com/taglens/taglens/tsne"
)

// transform places new points into an existing map with tsne's Transform: the
// map's points stay fixed, so an overlay never moves what the user already saw.
func transform(ctx context.Context, emb *tsne.Embedding, x [][]float64) ([][]float64, error) {
	return emb.Transform(ctx, x, tsne.Options{Seed: 1})
}
