package server

import (
	"context"
	"errors"

	"github.com/taglens/taglens/tsne"
)

// transform places new points into an existing map with tsne's Transform.
func transform(ctx context.Context, emb *tsne.Embedding, x [][]float64) ([][]float64, error) {
	return nil, errors.New("placing new points needs tsne.(*Embedding).Transform, not yet available")
}
