//go:build !amd64 || purego || noasm || gccgo || safe

package baselines

// useLanes is false: gonum's dot products are not the amd64 assembly that
// lanes2x4 reproduces (or assembly is off), so distances come from gonum.
var useLanes = false

func lanes2x4(a0, a1, b *float64, bs, n int, out *[32]float64) {
	panic("baselines: lanes2x4 without assembly")
}

// useGloveAVX512 is false: gloveStep runs its Go loop.
var useGloveAVX512 = false

func gloveStepAVX512(ri, rj *float64, d int, gb, rate float64) {
	panic("baselines: gloveStepAVX512 without assembly")
}

// useGloveAVX2 is false: gloveStep runs its Go loop.
var useGloveAVX2 = false

func gloveStepAVX2(ri, rj *float64, d int, gb, rate float64) {
	panic("baselines: gloveStepAVX2 without assembly")
}
