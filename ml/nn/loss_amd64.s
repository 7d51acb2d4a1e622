//go:build !purego

#include "textflag.h"

DATA lossc_lo<>+0(SB)/8, $0xbfefffffffffdcd1
DATA lossc_lo<>+8(SB)/8, $0xbfefffffffffdcd1
DATA lossc_lo<>+16(SB)/8, $0xbfefffffffffdcd1
DATA lossc_lo<>+24(SB)/8, $0xbfefffffffffdcd1
GLOBL lossc_lo<>(SB), RODATA|NOPTR, $32
DATA lossc_hi<>+0(SB)/8, $0x3fefffffffffdcd1
DATA lossc_hi<>+8(SB)/8, $0x3fefffffffffdcd1
DATA lossc_hi<>+16(SB)/8, $0x3fefffffffffdcd1
DATA lossc_hi<>+24(SB)/8, $0x3fefffffffffdcd1
GLOBL lossc_hi<>(SB), RODATA|NOPTR, $32
DATA lossc_one<>+0(SB)/8, $0x3ff0000000000000
DATA lossc_one<>+8(SB)/8, $0x3ff0000000000000
DATA lossc_one<>+16(SB)/8, $0x3ff0000000000000
DATA lossc_one<>+24(SB)/8, $0x3ff0000000000000
GLOBL lossc_one<>(SB), RODATA|NOPTR, $32
DATA lossc_mant<>+0(SB)/8, $0x000fffffffffffff
DATA lossc_mant<>+8(SB)/8, $0x000fffffffffffff
DATA lossc_mant<>+16(SB)/8, $0x000fffffffffffff
DATA lossc_mant<>+24(SB)/8, $0x000fffffffffffff
GLOBL lossc_mant<>(SB), RODATA|NOPTR, $32
DATA lossc_expo<>+0(SB)/8, $0x3ff0000000000000
DATA lossc_expo<>+8(SB)/8, $0x3ff0000000000000
DATA lossc_expo<>+16(SB)/8, $0x3ff0000000000000
DATA lossc_expo<>+24(SB)/8, $0x3ff0000000000000
GLOBL lossc_expo<>(SB), RODATA|NOPTR, $32

// func foldRowAVX2(v, d *float64, n int, sgn, sw float64, st *foldState)
//
// For the default class of an Eq. 5 row (sgn = +1: y = +1, sw = -wPos; sgn = -1:
// y = -1, sw = wNeg), n a positive multiple of 4, with c = clamp(v[j]) to
// [-1+Eps, 1-Eps] and f = 1 + sgn·c:
//
//	d[j] = sw·(1 - sgn·v[j])          if c = v[j] (not clamped),
//	d[j] = sw/f·(1 - v[j]·v[j])       otherwise (the operations of foldRowGo),
//
// and the 4 lane products of f, renormalised to [1, 2) after every 16 factors and at
// the end, into st.p, with the sum of the biased exponents removed into st.e; st.nan
// is set to 1 if an entry of v is NaN.
// Requires AVX2 and FMA.
TEXT ·foldRowAVX2(SB), NOSPLIT, $0-48
	MOVQ         v+0(FP), SI
	MOVQ         d+8(FP), DI
	MOVQ         n+16(FP), CX
	SHRQ         $2, CX
	MOVSD        sgn+24(FP), X13
	VBROADCASTSD X13, Y13
	MOVSD        sw+32(FP), X12
	VBROADCASTSD X12, Y12
	MOVQ         st+40(FP), DX
	VMOVUPD      lossc_lo<>(SB), Y15
	VMOVUPD      lossc_hi<>(SB), Y14
	VMOVUPD      lossc_one<>(SB), Y11
	VMOVUPD      lossc_mant<>(SB), Y8
	VMOVUPD      lossc_expo<>(SB), Y7
	VMOVUPD      Y11, Y10
	VPXOR        Y9, Y9, Y9
	MOVQ         $16, R8
	XORQ         R9, R9

loop:
	VMOVUPD      (SI), Y0
	VMAXPD       Y0, Y15, Y1
	VMINPD       Y1, Y14, Y1
	VMOVAPD      Y11, Y2
	VFMADD231PD  Y13, Y1, Y2
	VMULPD       Y2, Y10, Y10
	VMOVAPD      Y11, Y3
	VFNMADD231PD Y13, Y0, Y3
	VMULPD       Y12, Y3, Y3
	VCMPPD       $4, Y1, Y0, Y4
	VPTEST       Y4, Y4
	JEQ          store
	VDIVPD       Y2, Y12, Y5
	VMULPD       Y0, Y0, Y6
	VSUBPD       Y6, Y11, Y6
	VMULPD       Y6, Y5, Y5
	VBLENDVPD    Y4, Y5, Y3, Y3
	VCMPPD       $3, Y0, Y0, Y5
	VPTEST       Y5, Y5
	JEQ          store
	MOVQ         $1, R9

store:
	VMOVUPD Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    R8
	JNZ     next
	VPSRLQ  $52, Y10, Y5
	VPADDQ  Y5, Y9, Y9
	VPAND   Y8, Y10, Y10
	VPOR    Y7, Y10, Y10
	MOVQ    $16, R8

next:
	DECQ CX
	JNZ  loop

	VPSRLQ  $52, Y10, Y5
	VPADDQ  Y5, Y9, Y9
	VPAND   Y8, Y10, Y10
	VPOR    Y7, Y10, Y10
	VMOVUPD Y10, (DX)
	VMOVDQU Y9, 32(DX)
	MOVQ    R9, 64(DX)
	VZEROUPPER
	RET
