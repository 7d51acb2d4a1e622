//go:build !purego

#include "textflag.h"

// GEMM micro-kernels. A(r,p), r < MR, is at a + r·ars + p·aps bytes (a packed panel
// has ars = 8, aps = 8·MR; a row-major matrix read in place ars = 8·lda, aps = 8; a
// transposed one ars = 8, aps = 8·lda). Step p of the B panel is NR contiguous values
// at b + p·bs bytes (packed: bs = 8·NR). They compute the MR×NR tile
// T = Σ_{p<k} A(:,p)·B(p,:) and store it into C (row r at c + r·ldc bytes), or add it
// to C when add is true. k ≥ 1.

// The AVX2 kernels' arguments: k in CX, a in SI, ars in R8, aps in R10, b in DI, bs
// in R9, c in DX, ldc in R11, add in R12.
#define KERN_ARGS \
	MOVQ    k+0(FP), CX;     \
	MOVQ    a+8(FP), SI;     \
	MOVQ    ars+16(FP), R8;  \
	MOVQ    aps+24(FP), R10; \
	MOVQ    b+32(FP), DI;    \
	MOVQ    bs+40(FP), R9;   \
	MOVQ    c+48(FP), DX;    \
	MOVQ    ldc+56(FP), R11; \
	MOVBQZX add+64(FP), R12

// One row's step: A(r,p) at ADDR broadcast into BR, times B's step (Y12, Y13),
// added by fused multiply-adds into the row's accumulators ACC0, ACC1.
#define FMA_ROW(ADDR, BR, ACC0, ACC1) \
	VBROADCASTSD ADDR, BR;            \
	VFMADD231PD  Y12, BR, ACC0;       \
	VFMADD231PD  Y13, BR, ACC1

// One row of C at DX: ACC0, ACC1 added to it, or stored.
#define ADD_ROW(ACC0, ACC1)      \
	VADDPD  (DX), ACC0, ACC0;     \
	VADDPD  32(DX), ACC1, ACC1;   \
	VMOVUPD ACC0, (DX);           \
	VMOVUPD ACC1, 32(DX)

#define ZERO_ROW(ACC0, ACC1)     \
	VXORPD ACC0, ACC0, ACC0;      \
	VXORPD ACC1, ACC1, ACC1

#define STORE_ROW(ACC0, ACC1) \
	VMOVUPD ACC0, (DX);        \
	VMOVUPD ACC1, 32(DX)

// func kernP6x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool)
//
// MR = 6, NR = 8; requires AVX2 and FMA. Twelve accumulators (Y0-Y11) keep both
// FMA pipes busy through the instruction's latency, which the eight of a 4×8
// tile did not; B's step is in Y12-Y13 and the broadcasts of A alternate in
// Y14-Y15. Rows 3-5 are read through R13 = a + 3·ars.
TEXT ·kernP6x8(SB), NOSPLIT, $0-65
	KERN_ARGS
	LEAQ    (R8)(R8*2), R14
	LEAQ    (SI)(R14*1), R13

	ZERO_ROW(Y0, Y1)
	ZERO_ROW(Y2, Y3)
	ZERO_ROW(Y4, Y5)
	ZERO_ROW(Y6, Y7)
	ZERO_ROW(Y8, Y9)
	ZERO_ROW(Y10, Y11)

loop6x8:
	VMOVUPD (DI), Y12
	VMOVUPD 32(DI), Y13
	FMA_ROW((SI), Y14, Y0, Y1)
	FMA_ROW((SI)(R8*1), Y15, Y2, Y3)
	FMA_ROW((SI)(R8*2), Y14, Y4, Y5)
	FMA_ROW((R13), Y15, Y6, Y7)
	FMA_ROW((R13)(R8*1), Y14, Y8, Y9)
	FMA_ROW((R13)(R8*2), Y15, Y10, Y11)
	ADDQ R10, SI
	ADDQ R10, R13
	ADDQ R9, DI
	DECQ CX
	JNZ  loop6x8

	TESTQ R12, R12
	JEQ   store6x8
	ADD_ROW(Y0, Y1)
	ADDQ R11, DX
	ADD_ROW(Y2, Y3)
	ADDQ R11, DX
	ADD_ROW(Y4, Y5)
	ADDQ R11, DX
	ADD_ROW(Y6, Y7)
	ADDQ R11, DX
	ADD_ROW(Y8, Y9)
	ADDQ R11, DX
	ADD_ROW(Y10, Y11)
	VZEROUPPER
	RET

store6x8:
	STORE_ROW(Y0, Y1)
	ADDQ R11, DX
	STORE_ROW(Y2, Y3)
	ADDQ R11, DX
	STORE_ROW(Y4, Y5)
	ADDQ R11, DX
	STORE_ROW(Y6, Y7)
	ADDQ R11, DX
	STORE_ROW(Y8, Y9)
	ADDQ R11, DX
	STORE_ROW(Y10, Y11)
	VZEROUPPER
	RET

// func kernP4x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool)
// func kernP2x8(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, add bool)
//
// MR = 4 and 2, NR = 8; require AVX2 and FMA. The edge tiles of kernP6x8's
// blocks: the same chain of fused multiply-adds for every element, on fewer rows.
TEXT ·kernP4x8(SB), NOSPLIT, $0-65
	KERN_ARGS
	LEAQ    (R8)(R8*2), R14

	ZERO_ROW(Y0, Y1)
	ZERO_ROW(Y2, Y3)
	ZERO_ROW(Y4, Y5)
	ZERO_ROW(Y6, Y7)

loop4x8:
	VMOVUPD (DI), Y12
	VMOVUPD 32(DI), Y13
	FMA_ROW((SI), Y14, Y0, Y1)
	FMA_ROW((SI)(R8*1), Y15, Y2, Y3)
	FMA_ROW((SI)(R8*2), Y14, Y4, Y5)
	FMA_ROW((SI)(R14*1), Y15, Y6, Y7)
	ADDQ R10, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  loop4x8

	TESTQ R12, R12
	JEQ   store4x8
	ADD_ROW(Y0, Y1)
	ADDQ R11, DX
	ADD_ROW(Y2, Y3)
	ADDQ R11, DX
	ADD_ROW(Y4, Y5)
	ADDQ R11, DX
	ADD_ROW(Y6, Y7)
	VZEROUPPER
	RET

store4x8:
	STORE_ROW(Y0, Y1)
	ADDQ R11, DX
	STORE_ROW(Y2, Y3)
	ADDQ R11, DX
	STORE_ROW(Y4, Y5)
	ADDQ R11, DX
	STORE_ROW(Y6, Y7)
	VZEROUPPER
	RET

TEXT ·kernP2x8(SB), NOSPLIT, $0-65
	KERN_ARGS

	ZERO_ROW(Y0, Y1)
	ZERO_ROW(Y2, Y3)

loop2x8:
	VMOVUPD (DI), Y12
	VMOVUPD 32(DI), Y13
	FMA_ROW((SI), Y14, Y0, Y1)
	FMA_ROW((SI)(R8*1), Y15, Y2, Y3)
	ADDQ R10, SI
	ADDQ R9, DI
	DECQ CX
	JNZ  loop2x8

	TESTQ R12, R12
	JEQ   store2x8
	ADD_ROW(Y0, Y1)
	ADDQ R11, DX
	ADD_ROW(Y2, Y3)
	VZEROUPPER
	RET

store2x8:
	STORE_ROW(Y0, Y1)
	ADDQ R11, DX
	STORE_ROW(Y2, Y3)
	VZEROUPPER
	RET

// func kernP8x16(k int, a *float64, ars, aps int, b *float64, bs int, c *float64, ldc int, rows, mask int, add bool)
//
// MR = 8, NR = 16; requires AVX-512F. Only rows < rows (1..8) and the columns whose
// bit is set in mask (bit j: column j) of C are read and written (masked loads and
// stores), so edge tiles need no copy.
TEXT ·kernP8x16(SB), NOSPLIT, $0-81
	MOVQ    k+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    ars+16(FP), R8
	MOVQ    aps+24(FP), R10
	MOVQ    b+32(FP), DI
	MOVQ    bs+40(FP), R9
	MOVQ    c+48(FP), DX
	MOVQ    ldc+56(FP), R11
	LEAQ    (R8)(R8*2), R14
	LEAQ    (SI)(R8*4), R13

	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15

loop8x16:
	VMOVUPD (DI), Z16
	VMOVUPD 64(DI), Z17
	VBROADCASTSD (SI), Z18
	VBROADCASTSD (SI)(R8*1), Z19
	VBROADCASTSD (SI)(R8*2), Z20
	VBROADCASTSD (SI)(R14*1), Z21
	VBROADCASTSD (R13), Z22
	VBROADCASTSD (R13)(R8*1), Z23
	VBROADCASTSD (R13)(R8*2), Z24
	VBROADCASTSD (R13)(R14*1), Z25
	VFMADD231PD  Z16, Z18, Z0
	VFMADD231PD  Z17, Z18, Z1
	VFMADD231PD  Z16, Z19, Z2
	VFMADD231PD  Z17, Z19, Z3
	VFMADD231PD  Z16, Z20, Z4
	VFMADD231PD  Z17, Z20, Z5
	VFMADD231PD  Z16, Z21, Z6
	VFMADD231PD  Z17, Z21, Z7
	VFMADD231PD  Z16, Z22, Z8
	VFMADD231PD  Z17, Z22, Z9
	VFMADD231PD  Z16, Z23, Z10
	VFMADD231PD  Z17, Z23, Z11
	VFMADD231PD  Z16, Z24, Z12
	VFMADD231PD  Z17, Z24, Z13
	VFMADD231PD  Z16, Z25, Z14
	VFMADD231PD  Z17, Z25, Z15
	ADDQ R10, SI
	ADDQ R10, R13
	ADDQ R9, DI
	DECQ CX
	JNZ  loop8x16

	MOVQ    rows+64(FP), CX
	MOVQ    mask+72(FP), AX
	KMOVW   AX, K1
	SHRQ    $8, AX
	KMOVW   AX, K2
	MOVBQZX add+80(FP), R12
	TESTQ   R12, R12
	JEQ     store8x16

	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z0, Z0
	VADDPD Z27, Z1, Z1
	VMOVUPD Z0, K1, (DX)
	VMOVUPD Z1, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z2, Z2
	VADDPD Z27, Z3, Z3
	VMOVUPD Z2, K1, (DX)
	VMOVUPD Z3, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z4, Z4
	VADDPD Z27, Z5, Z5
	VMOVUPD Z4, K1, (DX)
	VMOVUPD Z5, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z6, Z6
	VADDPD Z27, Z7, Z7
	VMOVUPD Z6, K1, (DX)
	VMOVUPD Z7, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z8, Z8
	VADDPD Z27, Z9, Z9
	VMOVUPD Z8, K1, (DX)
	VMOVUPD Z9, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z10, Z10
	VADDPD Z27, Z11, Z11
	VMOVUPD Z10, K1, (DX)
	VMOVUPD Z11, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z12, Z12
	VADDPD Z27, Z13, Z13
	VMOVUPD Z12, K1, (DX)
	VMOVUPD Z13, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD.Z (DX), K1, Z26
	VMOVUPD.Z 64(DX), K2, Z27
	VADDPD Z26, Z14, Z14
	VADDPD Z27, Z15, Z15
	VMOVUPD Z14, K1, (DX)
	VMOVUPD Z15, K2, 64(DX)
	JMP done8x16

store8x16:
	VMOVUPD Z0, K1, (DX)
	VMOVUPD Z1, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z2, K1, (DX)
	VMOVUPD Z3, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z4, K1, (DX)
	VMOVUPD Z5, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z6, K1, (DX)
	VMOVUPD Z7, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z8, K1, (DX)
	VMOVUPD Z9, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z10, K1, (DX)
	VMOVUPD Z11, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z12, K1, (DX)
	VMOVUPD Z13, K2, 64(DX)
	DECQ CX
	JEQ  done8x16
	ADDQ R11, DX
	VMOVUPD Z14, K1, (DX)
	VMOVUPD Z15, K2, 64(DX)

done8x16:
	VZEROUPPER
	RET
