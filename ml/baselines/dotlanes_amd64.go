//go:build amd64 && !purego && !noasm && !gccgo && !safe

package baselines

import "golang.org/x/sys/cpu"

// useLanes reports whether cosineProduct runs: gonum's dot products are its
// SSE2 assembly (the build tags gonum's internal/asm/f64 uses), whose rounding
// lanes2x4 reproduces, and the CPU has AVX2. Tests switch it off to compare
// with gonum.
var useLanes = cpu.X86.HasAVX2

//go:noescape
func lanes2x4(a0, a1, b *float64, bs, n int, out *[32]float64)

// useGloveAVX512 reports whether gloveStep runs its coordinates eight at a
// time in gloveStepAVX512 (the same bits as its Go loop). Tests switch it off.
var useGloveAVX512 = cpu.X86.HasAVX512F

//go:noescape
func gloveStepAVX512(ri, rj *float64, d int, gb, rate float64)

// useGloveAVX2 reports whether gloveStep runs its coordinates four at a
// time in gloveStepAVX2 where the AVX-512 loop does not run (the same bits
// as its Go loop). Tests switch it off.
var useGloveAVX2 = cpu.X86.HasAVX2

//go:noescape
func gloveStepAVX2(ri, rj *float64, d int, gb, rate float64)
