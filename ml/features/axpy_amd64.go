//go:build amd64 && !purego

package features

import "golang.org/x/sys/cpu"

// useAxpy reports whether Sparse's products run the AVX-512 kernel; tests
// switch it off to compare with the Go loop.
var useAxpy = cpu.X86.HasAVX512F

// axpyRound sets y[c] += a·x[c] for c < len(y) ≤ len(x), the product rounded,
// then the sum (no fused multiply-add): the Go loop's bits, eight lanes at a
// time.
//
//go:noescape
func axpyRound(y, x []float64, a float64)
