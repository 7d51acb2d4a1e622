//go:build !amd64 || purego

package nn

var (
	useAsm    = false
	useAVX512 = false
)

func kernP6x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool) {
	panic("nn: kernP6x8 without assembly")
}

func kernP4x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool) {
	panic("nn: kernP4x8 without assembly")
}

func kernP2x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool) {
	panic("nn: kernP2x8 without assembly")
}

func kernP8x16(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, rows, mask int, add bool) {
	panic("nn: kernP8x16 without assembly")
}

func tanhAddAVX2(z, b *float64, n int) {
	panic("nn: tanhAddAVX2 without assembly")
}

func tanhAddAVX512(z, b *float64, n int) {
	panic("nn: tanhAddAVX512 without assembly")
}

func logAVX2(x, dst *float64, n int) (bad int) {
	panic("nn: logAVX2 without assembly")
}

func foldRowAVX2(v, d *float64, n int, sgn, sw float64, st *foldState) {
	panic("nn: foldRowAVX2 without assembly")
}

func tanhExactAVX2(dst, x *float64, n int) {
	panic("nn: tanhExactAVX2 without assembly")
}

func sgdMomAvgAVX512(p, vel, avg, grad *float64, n int, c *[4]float64) {
	panic("nn: sgdMomAvgAVX512 without assembly")
}

func sgdMomAvgAVX2(p, vel, avg, grad *float64, n int, c *[4]float64) {
	panic("nn: sgdMomAvgAVX2 without assembly")
}

func colSumsAddAVX2(dst, d *float64, rows, n, cols int) {
	panic("nn: colSumsAddAVX2 without assembly")
}

func axpyAVX2(a float64, x, y *float64, n int) {
	panic("nn: axpyAVX2 without assembly")
}

func tanhBackAVX2(d, z, ga, gb *float64, n int) {
	panic("nn: tanhBackAVX2 without assembly")
}
