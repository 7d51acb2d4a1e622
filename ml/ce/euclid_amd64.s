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

// func tanhSumAVX2(dst, th, ct, pre, cp *float64, at *int32, x *float64, rows, h int) (small int)
//
// dst[r·h+j] = (th[r·h+j] + ct[j]) / (1 + th[r·h+j]·ct[j]) for r < rows, j < h,
// h a positive multiple of 4: the addition theorem of embedPre with the
// operations of its Go loop (a product, then 1 + it; a sum; one division), four
// lanes at a time. No FMA. The entries whose denominator is below 0.5 (the
// ordered comparison of the Go loop's test), which embedPre takes directly,
// are listed in order: at[s] = r·h+j and x[s] = pre[r·h+j] + cp[j] for
// s < small (at and x have room for rows·h). Requires AVX2.
TEXT ·tanhSumAVX2(SB), NOSPLIT, $0-80
	MOVQ    dst+0(FP), DI
	MOVQ    th+8(FP), SI
	MOVQ    ct+16(FP), DX
	MOVQ    rows+56(FP), R8
	MOVQ    h+64(FP), R9
	SHRQ    $2, R9
	XORQ    R10, R10 // entries listed
	XORQ    R13, R13 // index of the first entry of the current four
	VMOVUPD tsum_one<>(SB), Y7
	VMOVUPD tsum_half<>(SB), Y6
	TESTQ   R8, R8
	JEQ     tsdone
	TESTQ   R9, R9
	JEQ     tsdone

tsrow:
	MOVQ DX, BX
	MOVQ R9, CX

tscol:
	VMOVUPD   (SI), Y0
	VMOVUPD   (BX), Y1
	VMULPD    Y1, Y0, Y2
	VADDPD    Y7, Y2, Y2
	VCMPPD    $0x11, Y6, Y2, Y4 // denominator < 0.5 (ordered, quiet)
	VMOVMSKPD Y4, AX
	VADDPD    Y1, Y0, Y3
	VDIVPD    Y2, Y3, Y3
	VMOVUPD   Y3, (DI)
	TESTQ     AX, AX
	JNE       tsfix

tsnext:
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	ADDQ $4, R13
	DECQ CX
	JNZ  tscol
	DECQ R8
	JNZ  tsrow

tsdone:
	MOVQ R10, small+72(FP)
	VZEROUPPER
	RET

// One listed entry per set bit of AX, lowest lane first.
tsfix:
	BSFQ    AX, R11              // lane
	LEAQ    -1(AX), R12
	ANDQ    R12, AX              // bit cleared
	LEAQ    (R13)(R11*1), R12    // r·h+j
	MOVQ    at+40(FP), R14
	MOVL    R12, (R14)(R10*4)
	MOVQ    pre+24(FP), R14
	VMOVSD  (R14)(R12*8), X5     // pre[r·h+j]
	MOVQ    BX, R14
	SUBQ    DX, R14
	LEAQ    (R14)(R11*8), R14    // 8·j
	ADDQ    cp+32(FP), R14
	VADDSD  (R14), X5, X5        // + cp[j]
	MOVQ    x+48(FP), R14
	VMOVSD  X5, (R14)(R10*8)
	INCQ    R10
	TESTQ   AX, AX
	JNE     tsfix
	JMP     tsnext

DATA tsum_half<>+0(SB)/8, $0x3fe0000000000000
DATA tsum_half<>+8(SB)/8, $0x3fe0000000000000
DATA tsum_half<>+16(SB)/8, $0x3fe0000000000000
DATA tsum_half<>+24(SB)/8, $0x3fe0000000000000
GLOBL tsum_half<>(SB), RODATA|NOPTR, $32
