package tsne

import (
	"math"

	blobsgen "github.com/taglens/taglens/tsne/internal/blobs"
)

// blobs is blobs.Make: n points in d dimensions around centres, and their
// labels.
func blobs(n, d, centres int, std float64, seed uint64) ([][]float64, []int) {
	return blobsgen.Make(n, d, centres, std, seed)
}

// exactRepulsion returns Σ_j w_ij²(y_i−y_j) for every i and Z, by brute force.
func exactRepulsion(y []float64) ([]float64, float64) {
	n := len(y) / 2
	r := make([]float64, 2*n)
	z := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			d0, d1 := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
			w := 1 / (1 + d0*d0 + d1*d1)
			z += w
			r[2*i] += w * w * d0
			r[2*i+1] += w * w * d1
		}
	}
	return r, z
}

// relErr returns ‖a−b‖/‖b‖.
func relErr(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}
