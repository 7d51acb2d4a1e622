//go:build !purego

#include "textflag.h"

// func sgdMomAvgAVX512(p, vel, avg, grad *float64, n int, c *[4]float64)
//
// The SGD step with momentum and averaging on n elements, n a multiple of 8,
// with c = {μ, η, γ, 1−γ}; requires AVX-512F. For every element the
// operations of SGD.step's loop, each rounded on its own (no fused
// multiply-add), so the results are those of the Go loop bit for bit:
//
//	v = μ·vel − η·grad;  vel = v;  p = p + v;  avg = γ·avg + (1−γ)·p
TEXT ·sgdMomAvgAVX512(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ vel+8(FP), SI
	MOVQ avg+16(FP), DX
	MOVQ grad+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	VBROADCASTSD 0(AX), Z8  // μ
	VBROADCASTSD 8(AX), Z9  // η
	VBROADCASTSD 16(AX), Z10 // γ
	VBROADCASTSD 24(AX), Z11 // 1−γ
	SHRQ $3, CX
	JEQ  done

loop:
	VMULPD  (SI), Z8, Z0  // μ·vel
	VMULPD  (BX), Z9, Z1  // η·grad
	VSUBPD  Z1, Z0, Z0    // v
	VMOVUPD Z0, (SI)
	VADDPD  (DI), Z0, Z0  // p + v
	VMOVUPD Z0, (DI)
	VMULPD  (DX), Z10, Z2 // γ·avg
	VMULPD  Z0, Z11, Z3   // (1−γ)·p
	VADDPD  Z3, Z2, Z2
	VMOVUPD Z2, (DX)
	ADDQ    $64, DI
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, BX
	DECQ    CX
	JNE     loop

done:
	VZEROUPPER
	RET

// func sgdMomAvgAVX2(p, vel, avg, grad *float64, n int, c *[4]float64)
//
// sgdMomAvgAVX512 four elements at a time, n a multiple of 4; requires AVX2.
// The same operations, each rounded on its own: the Go loop's bits.
TEXT ·sgdMomAvgAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ vel+8(FP), SI
	MOVQ avg+16(FP), DX
	MOVQ grad+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	VBROADCASTSD 0(AX), Y8  // μ
	VBROADCASTSD 8(AX), Y9  // η
	VBROADCASTSD 16(AX), Y10 // γ
	VBROADCASTSD 24(AX), Y11 // 1−γ
	SHRQ $2, CX
	JEQ  done2

loop2:
	VMULPD  (SI), Y8, Y0  // μ·vel
	VMULPD  (BX), Y9, Y1  // η·grad
	VSUBPD  Y1, Y0, Y0    // v
	VMOVUPD Y0, (SI)
	VADDPD  (DI), Y0, Y0  // p + v
	VMOVUPD Y0, (DI)
	VMULPD  (DX), Y10, Y2 // γ·avg
	VMULPD  Y0, Y11, Y3   // (1−γ)·p
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (DX)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, BX
	DECQ    CX
	JNE     loop2

done2:
	VZEROUPPER
	RET
