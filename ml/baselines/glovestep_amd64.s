//go:build amd64 && !purego && !noasm && !gccgo && !safe

#include "textflag.h"

// func gloveStepAVX512(ri, rj *float64, d int, gb, rate float64)
//
// gloveStep's loop on the first d&^7 coordinates, eight at a time; requires
// AVX-512F. ri holds w_i (d values) then its AdaGrad sums (d values), rj the
// same for w̃_j. For every coordinate the Go loop's operations, each rounded
// on its own (no fused multiply-add), so the results are its bits:
//
//	gi = gb·w̃_j;  gj = gb·w_i  (both from the values before the step)
//	s_i = s_i + gi·gi;  w_i = w_i − (rate·gi)/√s_i
//	s_j = s_j + gj·gj;  w̃_j = w̃_j − (rate·gj)/√s_j
TEXT ·gloveStepAVX512(SB), NOSPLIT, $0-40
	MOVQ ri+0(FP), DI
	MOVQ rj+8(FP), SI
	MOVQ d+16(FP), CX
	VBROADCASTSD gb+24(FP), Z8
	VBROADCASTSD rate+32(FP), Z9
	LEAQ (DI)(CX*8), R8 // sums of w_i
	LEAQ (SI)(CX*8), R9 // sums of w̃_j
	SHRQ $3, CX
	JEQ  done

loop:
	VMOVUPD (DI), Z0     // w_i
	VMOVUPD (SI), Z1     // w̃_j
	VMULPD  Z1, Z8, Z2   // gi = gb·w̃_j
	VMULPD  Z0, Z8, Z3   // gj = gb·w_i
	VMULPD  Z2, Z2, Z4   // gi·gi
	VADDPD  (R8), Z4, Z4 // s_i + gi·gi
	VMOVUPD Z4, (R8)
	VSQRTPD Z4, Z4
	VMULPD  Z2, Z9, Z2   // rate·gi
	VDIVPD  Z4, Z2, Z2   // (rate·gi)/√s_i
	VSUBPD  Z2, Z0, Z0   // w_i − …
	VMOVUPD Z0, (DI)
	VMULPD  Z3, Z3, Z5   // gj·gj
	VADDPD  (R9), Z5, Z5 // s_j + gj·gj
	VMOVUPD Z5, (R9)
	VSQRTPD Z5, Z5
	VMULPD  Z3, Z9, Z3   // rate·gj
	VDIVPD  Z5, Z3, Z3   // (rate·gj)/√s_j
	VSUBPD  Z3, Z1, Z1   // w̃_j − …
	VMOVUPD Z1, (SI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	ADDQ    $64, R8
	ADDQ    $64, R9
	DECQ    CX
	JNE     loop

done:
	VZEROUPPER
	RET

// func gloveStepAVX2(ri, rj *float64, d int, gb, rate float64)
//
// gloveStepAVX512 in AVX2, on the first d&^3 coordinates, four at a time:
// the same operations, each rounded on its own. Requires AVX2.
TEXT ·gloveStepAVX2(SB), NOSPLIT, $0-40
	MOVQ ri+0(FP), DI
	MOVQ rj+8(FP), SI
	MOVQ d+16(FP), CX
	VBROADCASTSD gb+24(FP), Y8
	VBROADCASTSD rate+32(FP), Y9
	LEAQ (DI)(CX*8), R8 // sums of w_i
	LEAQ (SI)(CX*8), R9 // sums of w̃_j
	SHRQ $2, CX
	JEQ  done2

loop2:
	VMOVUPD (DI), Y0     // w_i
	VMOVUPD (SI), Y1     // w̃_j
	VMULPD  Y1, Y8, Y2   // gi = gb·w̃_j
	VMULPD  Y0, Y8, Y3   // gj = gb·w_i
	VMULPD  Y2, Y2, Y4   // gi·gi
	VADDPD  (R8), Y4, Y4 // s_i + gi·gi
	VMOVUPD Y4, (R8)
	VSQRTPD Y4, Y4
	VMULPD  Y2, Y9, Y2   // rate·gi
	VDIVPD  Y4, Y2, Y2   // (rate·gi)/√s_i
	VSUBPD  Y2, Y0, Y0   // w_i − …
	VMOVUPD Y0, (DI)
	VMULPD  Y3, Y3, Y5   // gj·gj
	VADDPD  (R9), Y5, Y5 // s_j + gj·gj
	VMOVUPD Y5, (R9)
	VSQRTPD Y5, Y5
	VMULPD  Y3, Y9, Y3   // rate·gj
	VDIVPD  Y5, Y3, Y3   // (rate·gj)/√s_j
	VSUBPD  Y3, Y1, Y1   // w̃_j − …
	VMOVUPD Y1, (SI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	DECQ    CX
	JNE     loop2

done2:
	VZEROUPPER
	RET
