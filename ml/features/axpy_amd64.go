//go:build amd64 && !purego

package features

import "golang.org/x/sys/cpu"

// axpyRound sets y[c] += a·x[c] for c < len(y) ≤ len(x), the product rounded,
// then the sum (no fused multiply-add): the Go loop's bits, eight (AVX-512) or
// four (AVX2) lanes at a time. It is the processor's kernel, chosen once; nil
// without AVX-512 or AVX2.
var axpyRound = func() func(y, x []float64, a float64) {
	switch {
	case cpu.X86.HasAVX512F:
		return axpyRound512
	case cpu.X86.HasAVX2:
		return axpyRound256
	}
	return nil
}()

// useAxpy reports whether Sparse's products run axpyRound; tests switch it
// off to compare with the Go loop.
var useAxpy = axpyRound != nil

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
