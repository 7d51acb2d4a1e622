//go:build !amd64 || purego

package ce

var useEuclidGroups = false

func euclidGroup(a *float64, d int, blk *float64, dst *float64) {
	panic("ce: euclidGroup without assembly")
}

var useTanhSum = false

func tanhSumAVX2(dst, th, ct, pre, cp *float64, at *int32, x *float64, rows, h int) (small int) {
	panic("ce: tanhSumAVX2 without assembly")
}

// Without AVX-512 there is no screening: evaluation takes the exact path.
var useScreen = false

func gemm8x32(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int) {
	panic("ce: gemm8x32 without assembly")
}

func tanhBias32(dst, src *float32, ds, ss int, bias *float32, rows, cols int) {
	panic("ce: tanhBias32 without assembly")
}

func dist32(ce *float32, cs int, q *float32, d int, out *float32, cols int) {
	panic("ce: dist32 without assembly")
}
