//go:build amd64 && !purego && !noasm && !gccgo && !safe

#include "textflag.h"

// func lanes2x4(a0, a1, b *float64, bs, n int, out *[32]float64)
//
// For r ∈ {0, 1} and t ∈ {0, 1, 2, 3}, with x = a_r and y the row at b + t·bs
// bytes, out[(4r+t)·4 + l] = Σ_{i < n, i ≡ l mod 4} x[i]·y[i], each product
// rounded, then added in increasing i to a lane that starts at 0: the four
// partial sums gonum's DotUnitary (dot_amd64.s) keeps in X7 and X8. n is a
// positive multiple of 4. Requires AVX2 (no FMA: a fused multiply-add would
// round differently).
TEXT ·lanes2x4(SB), NOSPLIT, $0-48
	MOVQ a0+0(FP), SI
	MOVQ a1+8(FP), R8
	MOVQ b+16(FP), DI
	MOVQ bs+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	LEAQ (R9)(R9*2), R10
	XORQ AX, AX

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop:
	VMOVUPD (SI)(AX*1), Y8
	VMOVUPD (R8)(AX*1), Y9
	LEAQ    (DI)(AX*1), R11

	VMOVUPD (R11), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y0, Y0
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y4, Y4

	VMOVUPD (R11)(R9*1), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y1, Y1
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y5, Y5

	VMOVUPD (R11)(R9*2), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y2, Y2
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y6, Y6

	VMOVUPD (R11)(R10*1), Y10
	VMULPD  Y8, Y10, Y11
	VADDPD  Y11, Y3, Y3
	VMULPD  Y9, Y10, Y12
	VADDPD  Y12, Y7, Y7

	ADDQ $32, AX
	SUBQ $4, CX
	JNZ  loop

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	VZEROUPPER
	RET
