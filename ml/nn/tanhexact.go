package nn

import "math"

// TanhTo sets dst[i] = math.Tanh(x[i]) for every i, bit for bit (dst and x may
// be the same slice). With the assembly kernels the first len(x) &^ 3 values
// come from tanhExactAVX2, which repeats Go's own algorithm (tanh.go, and the
// FMA path of math.Exp on amd64) four lanes at a time; the rest go through
// math.Tanh. It panics if dst is shorter than x.
func TanhTo(dst, x []float64) {
	dst = dst[:len(x)]
	n := 0
	if useAsm && len(x) >= 4 {
		n = len(x) &^ 3
		tanhExactAVX2(&dst[0], &x[0], n)
	}
	for i := n; i < len(x); i++ {
		dst[i] = math.Tanh(x[i])
	}
}
