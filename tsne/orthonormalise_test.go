package tsne

import (
	"github.com/taglens/taglens/internal/linalg"
	"gonum.org/v1/gonum/mat"
)

// orthonormalise is the test helpers' name for linalg.Orthonormalize, which
// the randomized SVD of wide inputs uses (spectrum builds its random
// orthonormal factors with it).
func orthonormalise(a *mat.Dense) { linalg.Orthonormalize(a) }
