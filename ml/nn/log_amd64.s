//go:build !purego

#include "textflag.h"

// Constants of logAVX2, four copies each. L1..L7, Ln2Hi and Ln2Lo are those of
// Go's math.Log (the FreeBSD e_log.c coefficients), bit for bit.

// math.MaxFloat64
DATA logc_max<>+0(SB)/8, $0x7fefffffffffffff
DATA logc_max<>+8(SB)/8, $0x7fefffffffffffff
DATA logc_max<>+16(SB)/8, $0x7fefffffffffffff
DATA logc_max<>+24(SB)/8, $0x7fefffffffffffff
GLOBL logc_max<>(SB), RODATA|NOPTR, $32
// mantissa bits
DATA logc_mant<>+0(SB)/8, $0x000fffffffffffff
DATA logc_mant<>+8(SB)/8, $0x000fffffffffffff
DATA logc_mant<>+16(SB)/8, $0x000fffffffffffff
DATA logc_mant<>+24(SB)/8, $0x000fffffffffffff
GLOBL logc_mant<>(SB), RODATA|NOPTR, $32
// 0.5
DATA logc_half<>+0(SB)/8, $0x3fe0000000000000
DATA logc_half<>+8(SB)/8, $0x3fe0000000000000
DATA logc_half<>+16(SB)/8, $0x3fe0000000000000
DATA logc_half<>+24(SB)/8, $0x3fe0000000000000
GLOBL logc_half<>(SB), RODATA|NOPTR, $32
// 2^52: an exponent field OR'd into it is 2^52 + e
DATA logc_magic<>+0(SB)/8, $0x4330000000000000
DATA logc_magic<>+8(SB)/8, $0x4330000000000000
DATA logc_magic<>+16(SB)/8, $0x4330000000000000
DATA logc_magic<>+24(SB)/8, $0x4330000000000000
GLOBL logc_magic<>(SB), RODATA|NOPTR, $32
// 2^52 + 1022: (2^52 + e) - it = e - 1022 = k, exactly
DATA logc_kbias<>+0(SB)/8, $0x43300000000003fe
DATA logc_kbias<>+8(SB)/8, $0x43300000000003fe
DATA logc_kbias<>+16(SB)/8, $0x43300000000003fe
DATA logc_kbias<>+24(SB)/8, $0x43300000000003fe
GLOBL logc_kbias<>(SB), RODATA|NOPTR, $32
// √2/2
DATA logc_hsqrt2<>+0(SB)/8, $0x3fe6a09e667f3bcd
DATA logc_hsqrt2<>+8(SB)/8, $0x3fe6a09e667f3bcd
DATA logc_hsqrt2<>+16(SB)/8, $0x3fe6a09e667f3bcd
DATA logc_hsqrt2<>+24(SB)/8, $0x3fe6a09e667f3bcd
GLOBL logc_hsqrt2<>(SB), RODATA|NOPTR, $32
// 1
DATA logc_one<>+0(SB)/8, $0x3ff0000000000000
DATA logc_one<>+8(SB)/8, $0x3ff0000000000000
DATA logc_one<>+16(SB)/8, $0x3ff0000000000000
DATA logc_one<>+24(SB)/8, $0x3ff0000000000000
GLOBL logc_one<>(SB), RODATA|NOPTR, $32
// 2
DATA logc_two<>+0(SB)/8, $0x4000000000000000
DATA logc_two<>+8(SB)/8, $0x4000000000000000
DATA logc_two<>+16(SB)/8, $0x4000000000000000
DATA logc_two<>+24(SB)/8, $0x4000000000000000
GLOBL logc_two<>(SB), RODATA|NOPTR, $32
DATA logc_L1<>+0(SB)/8, $0x3fe5555555555593
DATA logc_L1<>+8(SB)/8, $0x3fe5555555555593
DATA logc_L1<>+16(SB)/8, $0x3fe5555555555593
DATA logc_L1<>+24(SB)/8, $0x3fe5555555555593
GLOBL logc_L1<>(SB), RODATA|NOPTR, $32
DATA logc_L2<>+0(SB)/8, $0x3fd999999997fa04
DATA logc_L2<>+8(SB)/8, $0x3fd999999997fa04
DATA logc_L2<>+16(SB)/8, $0x3fd999999997fa04
DATA logc_L2<>+24(SB)/8, $0x3fd999999997fa04
GLOBL logc_L2<>(SB), RODATA|NOPTR, $32
DATA logc_L3<>+0(SB)/8, $0x3fd2492494229359
DATA logc_L3<>+8(SB)/8, $0x3fd2492494229359
DATA logc_L3<>+16(SB)/8, $0x3fd2492494229359
DATA logc_L3<>+24(SB)/8, $0x3fd2492494229359
GLOBL logc_L3<>(SB), RODATA|NOPTR, $32
DATA logc_L4<>+0(SB)/8, $0x3fcc71c51d8e78af
DATA logc_L4<>+8(SB)/8, $0x3fcc71c51d8e78af
DATA logc_L4<>+16(SB)/8, $0x3fcc71c51d8e78af
DATA logc_L4<>+24(SB)/8, $0x3fcc71c51d8e78af
GLOBL logc_L4<>(SB), RODATA|NOPTR, $32
DATA logc_L5<>+0(SB)/8, $0x3fc7466496cb03de
DATA logc_L5<>+8(SB)/8, $0x3fc7466496cb03de
DATA logc_L5<>+16(SB)/8, $0x3fc7466496cb03de
DATA logc_L5<>+24(SB)/8, $0x3fc7466496cb03de
GLOBL logc_L5<>(SB), RODATA|NOPTR, $32
DATA logc_L6<>+0(SB)/8, $0x3fc39a09d078c69f
DATA logc_L6<>+8(SB)/8, $0x3fc39a09d078c69f
DATA logc_L6<>+16(SB)/8, $0x3fc39a09d078c69f
DATA logc_L6<>+24(SB)/8, $0x3fc39a09d078c69f
GLOBL logc_L6<>(SB), RODATA|NOPTR, $32
DATA logc_L7<>+0(SB)/8, $0x3fc2f112df3e5244
DATA logc_L7<>+8(SB)/8, $0x3fc2f112df3e5244
DATA logc_L7<>+16(SB)/8, $0x3fc2f112df3e5244
DATA logc_L7<>+24(SB)/8, $0x3fc2f112df3e5244
GLOBL logc_L7<>(SB), RODATA|NOPTR, $32
DATA logc_ln2hi<>+0(SB)/8, $0x3fe62e42fee00000
DATA logc_ln2hi<>+8(SB)/8, $0x3fe62e42fee00000
DATA logc_ln2hi<>+16(SB)/8, $0x3fe62e42fee00000
DATA logc_ln2hi<>+24(SB)/8, $0x3fe62e42fee00000
GLOBL logc_ln2hi<>(SB), RODATA|NOPTR, $32
DATA logc_ln2lo<>+0(SB)/8, $0x3dea39ef35793c76
DATA logc_ln2lo<>+8(SB)/8, $0x3dea39ef35793c76
DATA logc_ln2lo<>+16(SB)/8, $0x3dea39ef35793c76
DATA logc_ln2lo<>+24(SB)/8, $0x3dea39ef35793c76
GLOBL logc_ln2lo<>(SB), RODATA|NOPTR, $32

// func logAVX2(x, dst *float64, n int) (bad int)
//
// dst[i] = math.Log(x[i]) for i < n, n a positive multiple of 4, where every x[i]
// is positive and finite; bad is nonzero if one is not (zero, negative, infinite or
// NaN: then dst holds garbage and logTo takes math.Log for the batch). It runs the operations of Go's amd64 archLog
// (src/math/log_amd64.s) in the same order, four lanes at a time, so each lane
// rounds exactly as the scalar code does: frexp by bit operations, f1 doubled and k
// decremented where f1 ≤ √2/2, f = f1 - 1, s = f/(2+f), the two Horner polynomials
// t1 and t2 in s⁴, and k·Ln2Hi - ((hfsq - (s·(hfsq+R) + k·Ln2Lo)) - f). The integer
// exponent becomes a float64 through the 2^52 trick, which is exact for it. No FMA.
// Requires AVX2.
TEXT ·logAVX2(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    dst+8(FP), DI
	MOVQ    n+16(FP), CX
	XORQ    DX, DX
	VXORPD  Y10, Y10, Y10
	VMOVUPD logc_max<>(SB), Y11
	SHRQ    $2, CX
	JEQ     done

loop:
	VMOVUPD (SI), Y0

	// lanes not in (0, MaxFloat64] (NaN included) set bits of DX
	VCMPPD    $0x1e, Y10, Y0, Y8
	VCMPPD    $0x12, Y11, Y0, Y9
	VANDPD    Y9, Y8, Y8
	VMOVMSKPD Y8, AX
	XORQ      $15, AX
	ORQ       AX, DX

	// f1 = mantissa of x with the exponent of 0.5; k = exponent - 1022
	VANDPD  logc_mant<>(SB), Y0, Y2
	VORPD   logc_half<>(SB), Y2, Y2
	VPSRLQ  $52, Y0, Y1
	VPOR    logc_magic<>(SB), Y1, Y1
	VSUBPD  logc_kbias<>(SB), Y1, Y1

	// where !(√2/2 < f1): k -= 1, f1 *= 2
	VMOVUPD logc_hsqrt2<>(SB), Y3
	VCMPPD  $5, Y2, Y3, Y4
	VANDPD  logc_one<>(SB), Y4, Y5
	VSUBPD  Y5, Y1, Y1
	VADDPD  logc_one<>(SB), Y5, Y5
	VMULPD  Y5, Y2, Y2

	// f = f1 - 1; s = f / (2 + f); s2 = s·s; s4 = s2·s2
	VSUBPD logc_one<>(SB), Y2, Y2
	VADDPD logc_two<>(SB), Y2, Y0
	VDIVPD Y0, Y2, Y3
	VMULPD Y3, Y3, Y4
	VMULPD Y4, Y4, Y5

	// t1 = s2·(L1 + s4·(L3 + s4·(L5 + s4·L7)))
	VMULPD logc_L7<>(SB), Y5, Y6
	VADDPD logc_L5<>(SB), Y6, Y6
	VMULPD Y5, Y6, Y6
	VADDPD logc_L3<>(SB), Y6, Y6
	VMULPD Y5, Y6, Y6
	VADDPD logc_L1<>(SB), Y6, Y6
	VMULPD Y6, Y4, Y4

	// t2 = s4·(L2 + s4·(L4 + s4·L6)); R = t1 + t2
	VMULPD logc_L6<>(SB), Y5, Y6
	VADDPD logc_L4<>(SB), Y6, Y6
	VMULPD Y5, Y6, Y6
	VADDPD logc_L2<>(SB), Y6, Y6
	VMULPD Y6, Y5, Y5
	VADDPD Y5, Y4, Y4

	// hfsq = 0.5·f·f
	VMULPD logc_half<>(SB), Y2, Y0
	VMULPD Y2, Y0, Y0

	// k·Ln2Hi - ((hfsq - (s·(hfsq+R) + k·Ln2Lo)) - f)
	VADDPD Y0, Y4, Y4
	VMULPD Y4, Y3, Y3
	VMULPD logc_ln2lo<>(SB), Y1, Y4
	VADDPD Y4, Y3, Y3
	VSUBPD Y3, Y0, Y0
	VSUBPD Y2, Y0, Y0
	VMULPD logc_ln2hi<>(SB), Y1, Y1
	VSUBPD Y0, Y1, Y1
	VMOVUPD Y1, (DI)

	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	MOVQ DX, bad+24(FP)
	VZEROUPPER
	RET
