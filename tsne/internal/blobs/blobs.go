// Package blobs generates the Gaussian blobs the t-SNE tests and the
// benchmark command embed.
package blobs

import "math/rand/v2"

// Make returns n points in d dimensions around centres drawn uniformly from
// [−10, 10]^d (like scikit-learn's make_blobs), with isotropic Gaussian noise
// of standard deviation std, point i around centre i mod centres, and the
// centre (label) of every point.
func Make(n, d, centres int, std float64, seed uint64) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := make([][]float64, centres)
	for k := range c {
		c[k] = make([]float64, d)
		for j := range c[k] {
			c[k][j] = 20*rng.Float64() - 10
		}
	}
	back := make([]float64, n*d)
	x := make([][]float64, n)
	lab := make([]int, n)
	for i := range x {
		k := i % centres
		lab[i] = k
		x[i] = back[i*d : (i+1)*d] // rows end to end: tsne reads them in place
		for j := range x[i] {
			x[i][j] = c[k][j] + std*rng.NormFloat64()
		}
	}
	return x, lab
}
