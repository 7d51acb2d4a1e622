//go:build amd64 && !purego

package eval

import "golang.org/x/sys/cpu"

// useCountCmp reports whether RanksTo counts with the AVX2 kernel; tests
// switch it off to compare with the Go loops.
var useCountCmp = cpu.X86.HasAVX2

//go:noescape
func countCmp(x []float64, t float64, strict bool) int

//go:noescape
func minInto(mn, row []float64)
