package nn

import "math"

// logTo sets dst[i] = math.Log(x[i]) for every i, bit for bit. With the assembly
// kernels the first len(x) &^ 3 values come from logAVX2, which repeats Go's own
// amd64 algorithm four lanes at a time; the rest go through math.Log, and so does
// the whole batch when one of those values is not positive and finite (the
// arguments 1 ± ŷ of Eq. 5 with ŷ clamped always are, unless ŷ is NaN).
func logTo(dst, x []float64) {
	dst = dst[:len(x)]
	n := 0
	if useAsm && len(x) >= 4 {
		n = len(x) &^ 3
		if logAVX2(&x[0], &dst[0], n) != 0 {
			n = 0 // an argument outside (0, MaxFloat64]: all by math.Log
		}
	}
	for i := n; i < len(x); i++ {
		dst[i] = math.Log(x[i])
	}
}
