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

// Without the assembly kernels there is no screening: evaluation takes the
// exact path.
func screenKernelSets() []screenKernels { return nil }
