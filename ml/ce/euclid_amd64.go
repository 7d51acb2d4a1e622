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
