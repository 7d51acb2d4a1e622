//go:build !amd64 || purego

package nn

var useAsm = false

func kern4x8(k int, a *float64, ars, aps int, b *float64, ldb int, c *float64, ldc int) {
	panic("nn: kern4x8 without assembly")
}
