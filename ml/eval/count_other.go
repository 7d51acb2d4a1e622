//go:build !amd64 || purego

package eval

var useCountCmp = false

func countCmp(x []float64, t float64, strict bool) int {
	panic("eval: countCmp without assembly")
}

func minInto(mn, row []float64) {
	panic("eval: minInto without assembly")
}
