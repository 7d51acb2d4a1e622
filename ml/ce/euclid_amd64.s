//go:build amd64 && !purego

#include "textflag.h"

// func euclidGroup(a *float64, d int, blk *float64, dst *float64)
//
// For the 16 terms of a block stored as d rows of 16 values (blk, 128 bytes a
// row), dst[j] = √(Σ_i (a_i − x_ij)²), each difference squared and added in
// increasing i to a sum that starts at 0, then rounded by the square root, as
// euclid does for one term: one lane per term. d ≥ 1. Requires AVX2.
TEXT ·euclidGroup(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), AX
	MOVQ d+8(FP), CX
	MOVQ blk+16(FP), SI
	MOVQ dst+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   DX, DX

loop:
	VBROADCASTSD (AX)(DX*8), Y4
	VMOVUPD      (SI), Y5
	VSUBPD       Y5, Y4, Y5
	VMULPD       Y5, Y5, Y5
	VADDPD       Y5, Y0, Y0
	VMOVUPD      32(SI), Y6
	VSUBPD       Y6, Y4, Y6
	VMULPD       Y6, Y6, Y6
	VADDPD       Y6, Y1, Y1
	VMOVUPD      64(SI), Y7
	VSUBPD       Y7, Y4, Y7
	VMULPD       Y7, Y7, Y7
	VADDPD       Y7, Y2, Y2
	VMOVUPD      96(SI), Y8
	VSUBPD       Y8, Y4, Y8
	VMULPD       Y8, Y8, Y8
	VADDPD       Y8, Y3, Y3
	ADDQ         $128, SI
	INCQ         DX
	CMPQ         DX, CX
	JLT          loop

	VSQRTPD Y0, Y0
	VSQRTPD Y1, Y1
	VSQRTPD Y2, Y2
	VSQRTPD Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

DATA tsum_one<>+0(SB)/8, $0x3ff0000000000000
DATA tsum_one<>+8(SB)/8, $0x3ff0000000000000
DATA tsum_one<>+16(SB)/8, $0x3ff0000000000000
DATA tsum_one<>+24(SB)/8, $0x3ff0000000000000
GLOBL tsum_one<>(SB), RODATA|NOPTR, $32

// func tanhSumAVX2(dst, th, ct *float64, rows, h int)
//
// dst[r·h+j] = (th[r·h+j] + ct[j]) / (1 + th[r·h+j]·ct[j]) for r < rows, j < h,
// h a positive multiple of 4: the addition theorem of embedPre with the
// operations of its Go loop (a product, then 1 + it; a sum; one division), four
// lanes at a time. No FMA. Requires AVX2.
TEXT ·tanhSumAVX2(SB), NOSPLIT, $0-40
	MOVQ    dst+0(FP), DI
	MOVQ    th+8(FP), SI
	MOVQ    ct+16(FP), DX
	MOVQ    rows+24(FP), R8
	MOVQ    h+32(FP), R9
	SHRQ    $2, R9
	VMOVUPD tsum_one<>(SB), Y7
	TESTQ   R8, R8
	JEQ     tsdone
	TESTQ   R9, R9
	JEQ     tsdone

tsrow:
	MOVQ DX, BX
	MOVQ R9, CX

tscol:
	VMOVUPD (SI), Y0
	VMOVUPD (BX), Y1
	VMULPD  Y1, Y0, Y2
	VADDPD  Y7, Y2, Y2
	VADDPD  Y1, Y0, Y3
	VDIVPD  Y2, Y3, Y3
	VMOVUPD Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     tscol
	DECQ    R8
	JNZ     tsrow

tsdone:
	VZEROUPPER
	RET
