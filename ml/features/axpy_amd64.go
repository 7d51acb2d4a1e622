//go:build amd64 && !purego

package features

import "golang.org/x/sys/cpu"

// useAxpy reports whether Sparse's products run an assembly kernel (AVX-512,
// or AVX2 without it); tests switch it off to compare with the Go loop.
var useAxpy = cpu.X86.HasAVX512F || cpu.X86.HasAVX2

// useAxpy512 picks the AVX-512 kernel over the AVX2 one.
var useAxpy512 = cpu.X86.HasAVX512F

// axpyRound sets y[c] += a·x[c] for c < len(y) ≤ len(x), the product rounded,
// then the sum (no fused multiply-add): the Go loop's bits, eight (AVX-512) or
// four (AVX2) lanes at a time.
func axpyRound(y, x []float64, a float64) {
	if useAxpy512 {
		axpyRound512(y, x, a)
		return
	}
	axpyRound256(y, x, a)
}

//go:noescape
func axpyRound512(y, x []float64, a float64)

//go:noescape
func axpyRound256(y, x []float64, a float64)

// axpyKernels returns the assembly kernels this processor runs, by name, for
// the tests to compare each with the Go loop.
func axpyKernels() map[string]func(y, x []float64, a float64) {
	k := map[string]func(y, x []float64, a float64){}
	if cpu.X86.HasAVX512F {
		k["avx512"] = axpyRound512
	}
	if cpu.X86.HasAVX2 {
		k["avx2"] = axpyRound256
	}
	return k
}
