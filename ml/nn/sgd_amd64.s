//go:build !purego

#include "textflag.h"

// The SGD step with momentum and averaging on the elements at DI (θ), SI
// (v), DX (θ̄) and BX (∇), one vector of W bytes at a time, with μ, η, γ and
// 1−γ broadcast in MU, ETA, G and H. For every element the operations of
// SGD.step's loop, each rounded on its own (no fused multiply-add), so the
// results are those of the Go loop bit for bit:
//
//	v = μ·vel − η·grad;  vel = v;  p = p + v;  avg = γ·avg + (1−γ)·p
#define SGD_MOM_AVG(V0, V1, V2, V3, MU, ETA, G, H, W) \
	VMULPD  (SI), MU, V0;  \ // μ·vel
	VMULPD  (BX), ETA, V1; \ // η·grad
	VSUBPD  V1, V0, V0;    \ // v
	VMOVUPD V0, (SI);      \
	VADDPD  (DI), V0, V0;  \ // p + v
	VMOVUPD V0, (DI);      \
	VMULPD  (DX), G, V2;   \ // γ·avg
	VMULPD  V0, H, V3;     \ // (1−γ)·p
	VADDPD  V3, V2, V2;    \
	VMOVUPD V2, (DX);      \
	ADDQ    $W, DI;        \
	ADDQ    $W, SI;        \
	ADDQ    $W, DX;        \
	ADDQ    $W, BX

// The arguments of both kernels: the four vectors, the count in CX and
// c = {μ, η, γ, 1−γ} at AX.
#define SGD_ARGS \
	MOVQ p+0(FP), DI;     \
	MOVQ vel+8(FP), SI;   \
	MOVQ avg+16(FP), DX;  \
	MOVQ grad+24(FP), BX; \
	MOVQ n+32(FP), CX;    \
	MOVQ c+40(FP), AX

// func sgdMomAvgAVX512(p, vel, avg, grad *float64, n int, c *[4]float64)
//
// The step on n elements, n a multiple of 8, with c = {μ, η, γ, 1−γ};
// requires AVX-512F.
TEXT ·sgdMomAvgAVX512(SB), NOSPLIT, $0-48
	SGD_ARGS
	VBROADCASTSD 0(AX), Z8
	VBROADCASTSD 8(AX), Z9
	VBROADCASTSD 16(AX), Z10
	VBROADCASTSD 24(AX), Z11
	SHRQ $3, CX
	JEQ  done

loop:
	SGD_MOM_AVG(Z0, Z1, Z2, Z3, Z8, Z9, Z10, Z11, 64)
	DECQ CX
	JNE  loop

done:
	VZEROUPPER
	RET

// func sgdMomAvgAVX2(p, vel, avg, grad *float64, n int, c *[4]float64)
//
// The same step four elements at a time, n a multiple of 4; requires AVX2.
TEXT ·sgdMomAvgAVX2(SB), NOSPLIT, $0-48
	SGD_ARGS
	VBROADCASTSD 0(AX), Y8
	VBROADCASTSD 8(AX), Y9
	VBROADCASTSD 16(AX), Y10
	VBROADCASTSD 24(AX), Y11
	SHRQ $2, CX
	JEQ  done2

loop2:
	SGD_MOM_AVG(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11, 32)
	DECQ CX
	JNE  loop2

done2:
	VZEROUPPER
	RET
