//go:build !purego

package nn

import "golang.org/x/sys/cpu"

// useAsm reports whether the AVX2/FMA kernels run; tests switch it off to compare
// with the pure-Go kernels.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func kern4x8(k int, a *float64, ars, aps int, b *float64, ldb int, c *float64, ldc int)
