//go:build amd64 && !purego

package ce

import "golang.org/x/sys/cpu"

// useEuclidGroups reports whether euclidRows runs the AVX2 kernel; tests
// switch it off to compare with euclid.
var useEuclidGroups = cpu.X86.HasAVX2

//go:noescape
func euclidGroup(a *float64, d int, blk *float64, dst *float64)
