//go:build !purego

#include "textflag.h"

// func colSumsAddAVX2(dst, d *float64, rows, n, cols int)
//
// Adds the column sums of the first cols columns of the row-major rows×n
// matrix d to dst, cols a multiple of 4; requires AVX2. Each dst[j] takes
// d[0][j], d[1][j], … in row order, one rounded addition each, as the Go
// loop of colSumsAdd does: the same bits. Sixteen columns are kept in
// registers over all rows, then four.
TEXT ·colSumsAddAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ rows+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ cols+32(FP), CX
	SHLQ $3, R9          // the row stride in bytes
	TESTQ R8, R8
	JEQ  done

block16:
	CMPQ CX, $16
	JLT  block4
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ SI, AX
	MOVQ R8, DX

rows16:
	VADDPD 0(AX), Y0, Y0
	VADDPD 32(AX), Y1, Y1
	VADDPD 64(AX), Y2, Y2
	VADDPD 96(AX), Y3, Y3
	ADDQ   R9, AX
	DECQ   DX
	JNE    rows16
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $16, CX
	JMP  block16

block4:
	CMPQ CX, $4
	JLT  done
	VMOVUPD 0(DI), Y0
	MOVQ SI, AX
	MOVQ R8, DX

rows4:
	VADDPD 0(AX), Y0, Y0
	ADDQ   R9, AX
	DECQ   DX
	JNE    rows4
	VMOVUPD Y0, 0(DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $4, CX
	JMP  block4

done:
	VZEROUPPER
	RET

// func axpyAVX2(a float64, x, y *float64, n int)
//
// y += a·x on n elements, n a multiple of 4; requires AVX2. The product is
// rounded before the sum (no fused multiply-add), as in axpyUnitary's Go
// loop: the same bits.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSD a+0(FP), Y8
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JEQ  axdone
	CMPQ CX, $2
	JLT  ax1

ax2:
	VMULPD  0(SI), Y8, Y0
	VMULPD  32(SI), Y8, Y1
	VADDPD  0(DI), Y0, Y0
	VADDPD  32(DI), Y1, Y1
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $2, CX
	CMPQ    CX, $2
	JGE     ax2
	TESTQ   CX, CX
	JEQ     axdone

ax1:
	VMULPD  0(SI), Y8, Y0
	VADDPD  0(DI), Y0, Y0
	VMOVUPD Y0, 0(DI)

axdone:
	VZEROUPPER
	RET

DATA tb_one<>+0(SB)/8, $1.0
GLOBL tb_one<>(SB), RODATA|NOPTR, $8

// func tanhBackAVX2(d, z, ga, gb *float64, n int)
//
// d = (ga + gb)·(1 − z·z), or ga·(1 − z·z) when gb is nil, on n elements, n a
// multiple of 4; requires AVX2. Every product and sum is rounded on its own
// (no fused multiply-add), in tanhBack's order: its Go loop's bits.
TEXT ·tanhBackAVX2(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ ga+16(FP), DX
	MOVQ gb+24(FP), R8
	MOVQ n+32(FP), CX
	SHRQ $2, CX
	JEQ  tbdone
	VBROADCASTSD tb_one<>(SB), Y15
	TESTQ R8, R8
	JEQ  tbone

tbtwo:
	VMOVUPD 0(SI), Y0
	VMULPD  Y0, Y0, Y0   // z·z
	VSUBPD  Y0, Y15, Y0  // 1 − z·z
	VMOVUPD 0(DX), Y1
	VADDPD  0(R8), Y1, Y1 // ga + gb
	VMULPD  Y0, Y1, Y1
	VMOVUPD Y1, 0(DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    CX
	JNE     tbtwo
	JMP     tbdone

tbone:
	VMOVUPD 0(SI), Y0
	VMULPD  Y0, Y0, Y0
	VSUBPD  Y0, Y15, Y0
	VMULPD  0(DX), Y0, Y1 // ga·(1 − z·z)
	VMOVUPD Y1, 0(DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNE     tbone

tbdone:
	VZEROUPPER
	RET
