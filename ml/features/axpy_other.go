//go:build !amd64 || purego

package features

var useAxpy = false

func axpyRound(y, x []float64, a float64) {
	panic("features: axpyRound without assembly")
}

func axpyKernels() map[string]func(y, x []float64, a float64) { return nil }
