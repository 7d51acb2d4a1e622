//go:build !purego

package nn

import "golang.org/x/sys/cpu"

var (
	// useAsm reports whether the assembly kernels run (AVX2 and FMA); tests switch
	// it off to compare with the pure-Go kernels.
	useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	// useAVX512 selects the 8×16 AVX-512 GEMM kernel instead of the 6×8 AVX2 one;
	// tests switch it to cover both.
	useAVX512 = useAsm && cpu.X86.HasAVX512F
)

//go:noescape
func kernP6x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool)

//go:noescape
func kernP4x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool)

//go:noescape
func kernP2x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool)

//go:noescape
func kernP8x16(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, rows, mask int, add bool)

//go:noescape
func tanhAddAVX2(z, b *float64, n int)

//go:noescape
func tanhAddAVX512(z, b *float64, n int)

//go:noescape
func logAVX2(x, dst *float64, n int) (bad int)

//go:noescape
func foldRowAVX2(v, d *float64, n int, sgn, sw float64, st *foldState)

//go:noescape
func tanhExactAVX2(dst, x *float64, n int)

//go:noescape
func sgdMomAvgAVX512(p, vel, avg, grad *float64, n int, c *[4]float64)

//go:noescape
func sgdMomAvgAVX2(p, vel, avg, grad *float64, n int, c *[4]float64)

//go:noescape
func colSumsAddAVX2(dst, d *float64, rows, n, cols int)

//go:noescape
func tanhBackAVX2(d, z, ga, gb *float64, n int)

//go:noescape
func axpyAVX2(a float64, x, y *float64, n int)
