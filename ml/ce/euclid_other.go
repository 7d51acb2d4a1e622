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

// screenKernels are the single-precision kernels of the screening pass.
type screenKernels struct {
	name string
	gemm func(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int)
	tanh func(dst, src *float32, ds, ss int, bias *float32, rows, cols int)
	dist func(ce *float32, cs int, q *float32, d int, out *float32, cols int)
}

// Without the assembly kernels there is no screening: evaluation takes the
// exact path.
func screenKernelSets() []screenKernels { return nil }

var screen screenKernels

var useScreen = false
