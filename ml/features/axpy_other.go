//go:build !amd64 || purego

package features

// axpyRound is nil: Sparse's products run the Go loop.
var axpyRound func(y, x []float64, a float64)

var useAxpy = false

func axpyKernels() map[string]func(y, x []float64, a float64) { return nil }
