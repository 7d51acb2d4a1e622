package nn

import "math"

// logTo sets dst[i] = math.Log(x[i]) for every i, bit for bit. With the assembly
// kernels, when every x[i] is positive and finite (the arguments 1 ± ŷ of Eq. 5 with
// ŷ clamped always are), the first len(x) &^ 3 values come from logAVX2, which
// repeats Go's own amd64 algorithm four lanes at a time; the rest, and any batch
// holding a zero, a negative, an infinity or a NaN, go through math.Log.
func logTo(dst, x []float64) {
	dst = dst[:len(x)]
	n := 0
	if useAsm && len(x) >= 4 && positiveFinite(x) {
		n = len(x) &^ 3
		logAVX2(&x[0], &dst[0], n)
	}
	for i := n; i < len(x); i++ {
		dst[i] = math.Log(x[i])
	}
}

// positiveFinite reports whether 0 < v ≤ MaxFloat64 for every v in x (false for NaN).
func positiveFinite(x []float64) bool {
	for _, v := range x {
		if !(v > 0 && v <= math.MaxFloat64) {
			return false
		}
	}
	return true
}
