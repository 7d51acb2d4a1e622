//go:build amd64 && !purego

package topic

import "golang.org/x/sys/cpu"

// useKLGroups reports whether KLTable.TermKLTo runs the AVX2 kernel; tests
// switch it off to compare with the Go loop.
var useKLGroups = cpu.X86.HasAVX2

//go:noescape
func klGroups(theta, pq, lq *float64, k int, pb, lb *float64, groups int, dst *float64)
