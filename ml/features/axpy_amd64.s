//go:build amd64 && !purego

#include "textflag.h"

// func axpyRound512(y, x []float64, a float64)
//
// y[c] = y[c] + a·x[c] for c < len(y), each product rounded before the sum
// (VMULPD then VADDPD, no FMA), sixteen then eight values a step in AVX-512,
// the rest one at a time. Requires AVX-512F.
TEXT ·axpyRound512(SB), NOSPLIT, $0-56
	MOVQ         y_base+0(FP), DI
	MOVQ         y_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSD a+48(FP), Z0
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-16, DX

ax16:
	CMPQ    AX, DX
	JGE     ax8
	VMULPD  (SI)(AX*8), Z0, Z1
	VMULPD  64(SI)(AX*8), Z0, Z2
	VADDPD  (DI)(AX*8), Z1, Z1
	VADDPD  64(DI)(AX*8), Z2, Z2
	VMOVUPD Z1, (DI)(AX*8)
	VMOVUPD Z2, 64(DI)(AX*8)
	ADDQ    $16, AX
	JMP     ax16

ax8:
	MOVQ    CX, DX
	ANDQ    $-8, DX
	CMPQ    AX, DX
	JGE     ax1
	VMULPD  (SI)(AX*8), Z0, Z1
	VADDPD  (DI)(AX*8), Z1, Z1
	VMOVUPD Z1, (DI)(AX*8)
	ADDQ    $8, AX

ax1:
	CMPQ   AX, CX
	JGE    axdone
	VMOVSD (SI)(AX*8), X1
	VMULSD X0, X1, X1
	VADDSD (DI)(AX*8), X1, X1
	VMOVSD X1, (DI)(AX*8)
	INCQ   AX
	JMP    ax1

axdone:
	VZEROUPPER
	RET

// func axpyRound256(y, x []float64, a float64)
//
// axpyRound512 in AVX2: eight then four values a step, the rest one at a
// time, each product rounded before the sum. Requires AVX2.
TEXT ·axpyRound256(SB), NOSPLIT, $0-56
	MOVQ         y_base+0(FP), DI
	MOVQ         y_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSD a+48(FP), Y0
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-8, DX

ay8:
	CMPQ    AX, DX
	JGE     ay4
	VMULPD  (SI)(AX*8), Y0, Y1
	VMULPD  32(SI)(AX*8), Y0, Y2
	VADDPD  (DI)(AX*8), Y1, Y1
	VADDPD  32(DI)(AX*8), Y2, Y2
	VMOVUPD Y1, (DI)(AX*8)
	VMOVUPD Y2, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     ay8

ay4:
	MOVQ    CX, DX
	ANDQ    $-4, DX
	CMPQ    AX, DX
	JGE     ay1
	VMULPD  (SI)(AX*8), Y0, Y1
	VADDPD  (DI)(AX*8), Y1, Y1
	VMOVUPD Y1, (DI)(AX*8)
	ADDQ    $4, AX

ay1:
	CMPQ   AX, CX
	JGE    aydone
	VMOVSD (SI)(AX*8), X1
	VMULSD X0, X1, X1
	VADDSD (DI)(AX*8), X1, X1
	VMOVSD X1, (DI)(AX*8)
	INCQ   AX
	JMP    ay1

aydone:
	VZEROUPPER
	RET
