//go:build !amd64 || purego

package topic

var useKLGroups = false

func klGroups(theta, pq, lq *float64, k int, pb, lb *float64, groups int, dst *float64) {
	panic("topic: klGroups without assembly")
}
