package server

import (
	"context"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/tsne"
)

// transform places new points into an existing map with tsne's Transform: the
// map's points stay fixed, so an overlay never moves what the user already saw.
func transform(ctx context.Context, emb *tsne.Embedding, x [][]float64) ([][]float64, error) {
	return app.PlaceTSNE(ctx, emb, x, 1)
}
