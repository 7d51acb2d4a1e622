//go:build amd64 && !purego

#include "textflag.h"

// func klGroups(theta, pq, lq *float64, k int, pb, lb *float64, groups int, dst *float64)
//
// For each of groups blocks of 16 terms, whose p(τ_j|φ_c) and log p(τ_j|φ_c)
// are stored at pb and lb as k rows of 16 (c = 0..k-1, 128 bytes a row), it
// sets dst[j] = Σ_c θ_c·(pq_c − p_jc)·(lq_c − l_jc), each term rounded as Go
// rounds eq1Term, (θ·(pq − p))·(lq − l), and added in increasing c to a sum that
// starts at 0: one lane per term, so each sum is the scalar one. k ≥ 1.
// Requires AVX2 (no FMA: it would round differently).
TEXT ·klGroups(SB), NOSPLIT, $0-64
	MOVQ theta+0(FP), AX
	MOVQ pq+8(FP), BX
	MOVQ lq+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ pb+32(FP), SI
	MOVQ lb+40(FP), DI
	MOVQ groups+48(FP), R8
	MOVQ dst+56(FP), R9

group:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   R10, R10

topic:
	VBROADCASTSD (AX)(R10*8), Y4
	VBROADCASTSD (BX)(R10*8), Y5
	VBROADCASTSD (CX)(R10*8), Y6

	VMOVUPD (SI), Y7
	VSUBPD  Y7, Y5, Y7
	VMULPD  Y7, Y4, Y7
	VMOVUPD (DI), Y8
	VSUBPD  Y8, Y6, Y8
	VMULPD  Y8, Y7, Y7
	VADDPD  Y7, Y0, Y0

	VMOVUPD 32(SI), Y9
	VSUBPD  Y9, Y5, Y9
	VMULPD  Y9, Y4, Y9
	VMOVUPD 32(DI), Y10
	VSUBPD  Y10, Y6, Y10
	VMULPD  Y10, Y9, Y9
	VADDPD  Y9, Y1, Y1

	VMOVUPD 64(SI), Y11
	VSUBPD  Y11, Y5, Y11
	VMULPD  Y11, Y4, Y11
	VMOVUPD 64(DI), Y12
	VSUBPD  Y12, Y6, Y12
	VMULPD  Y12, Y11, Y11
	VADDPD  Y11, Y2, Y2

	VMOVUPD 96(SI), Y13
	VSUBPD  Y13, Y5, Y13
	VMULPD  Y13, Y4, Y13
	VMOVUPD 96(DI), Y14
	VSUBPD  Y14, Y6, Y14
	VMULPD  Y14, Y13, Y13
	VADDPD  Y13, Y3, Y3

	ADDQ $128, SI
	ADDQ $128, DI
	INCQ R10
	CMPQ R10, DX
	JLT  topic

	VMOVUPD Y0, (R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y3, 96(R9)
	ADDQ    $128, R9
	DECQ    R8
	JNZ     group

	VZEROUPPER
	RET
