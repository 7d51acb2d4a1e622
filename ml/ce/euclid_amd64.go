//go:build amd64 && !purego

package ce

import "golang.org/x/sys/cpu"

// useEuclidGroups reports whether euclidRows runs the AVX2 kernel; tests
// switch it off to compare with euclid.
var useEuclidGroups = cpu.X86.HasAVX2

//go:noescape
func euclidGroup(a *float64, d int, blk *float64, dst *float64)

// useTanhSum reports whether embedPre's layer-1 addition theorem runs the AVX2
// kernel tanhSumAVX2; tests switch it off to compare with the Go loop.
var useTanhSum = cpu.X86.HasAVX2

//go:noescape
func tanhSumAVX2(dst, th, ct, pre, cp *float64, at *int32, x *float64, rows, h int) (small int)

// screenKernelSets returns the screening kernels this processor runs, the
// fastest first: AVX-512, then AVX2 with FMA.
func screenKernelSets() []screenKernels {
	var k []screenKernels
	if cpu.X86.HasAVX512F {
		k = append(k, screenKernels{"avx512", gemm8x32, tanhBias32, dist32})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		k = append(k, screenKernels{"avx2", gemm8x32AVX2, tanhBias32AVX2, dist32AVX2})
	}
	return k
}

//go:noescape
func gemm8x32(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int)

//go:noescape
func tanhBias32(dst, src *float32, ds, ss int, bias *float32, rows, cols int)

//go:noescape
func dist32(ce *float32, cs int, q *float32, d int, out *float32, cols int)

//go:noescape
func gemm8x32AVX2(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int)

//go:noescape
func tanhBias32AVX2(dst, src *float32, ds, ss int, bias *float32, rows, cols int)

//go:noescape
func dist32AVX2(ce *float32, cs int, q *float32, d int, out *float32, cols int)
