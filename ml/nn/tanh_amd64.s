//go:build !purego

#include "textflag.h"

DATA tanhc_absmask<>+0(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+8(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+16(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+24(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+32(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+40(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+48(SB)/8, $0x7fffffffffffffff
DATA tanhc_absmask<>+56(SB)/8, $0x7fffffffffffffff
GLOBL tanhc_absmask<>(SB), RODATA|NOPTR, $64
DATA tanhc_tp0<>+0(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+8(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+16(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+24(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+32(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+40(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+48(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc_tp0<>+56(SB)/8, $0xbfeedc5baafd6f4b
GLOBL tanhc_tp0<>(SB), RODATA|NOPTR, $64
DATA tanhc_tp1<>+0(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+8(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+16(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+24(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+32(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+40(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+48(SB)/8, $0xc058d26a0e26682d
DATA tanhc_tp1<>+56(SB)/8, $0xc058d26a0e26682d
GLOBL tanhc_tp1<>(SB), RODATA|NOPTR, $64
DATA tanhc_tp2<>+0(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+8(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+16(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+24(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+32(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+40(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+48(SB)/8, $0xc0993ac030580563
DATA tanhc_tp2<>+56(SB)/8, $0xc0993ac030580563
GLOBL tanhc_tp2<>(SB), RODATA|NOPTR, $64
DATA tanhc_tq0<>+0(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+8(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+16(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+24(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+32(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+40(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+48(SB)/8, $0x405c33f28a581b86
DATA tanhc_tq0<>+56(SB)/8, $0x405c33f28a581b86
GLOBL tanhc_tq0<>(SB), RODATA|NOPTR, $64
DATA tanhc_tq1<>+0(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+8(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+16(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+24(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+32(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+40(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+48(SB)/8, $0x40a176fa0e5535fa
DATA tanhc_tq1<>+56(SB)/8, $0x40a176fa0e5535fa
GLOBL tanhc_tq1<>(SB), RODATA|NOPTR, $64
DATA tanhc_tq2<>+0(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+8(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+16(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+24(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+32(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+40(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+48(SB)/8, $0x40b2ec102442040c
DATA tanhc_tq2<>+56(SB)/8, $0x40b2ec102442040c
GLOBL tanhc_tq2<>(SB), RODATA|NOPTR, $64
DATA tanhc_big<>+0(SB)/8, $0x4036000000000000
DATA tanhc_big<>+8(SB)/8, $0x4036000000000000
DATA tanhc_big<>+16(SB)/8, $0x4036000000000000
DATA tanhc_big<>+24(SB)/8, $0x4036000000000000
DATA tanhc_big<>+32(SB)/8, $0x4036000000000000
DATA tanhc_big<>+40(SB)/8, $0x4036000000000000
DATA tanhc_big<>+48(SB)/8, $0x4036000000000000
DATA tanhc_big<>+56(SB)/8, $0x4036000000000000
GLOBL tanhc_big<>(SB), RODATA|NOPTR, $64
DATA tanhc_log2e<>+0(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+8(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+16(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+24(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+32(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+40(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+48(SB)/8, $0x3ff71547652b82fe
DATA tanhc_log2e<>+56(SB)/8, $0x3ff71547652b82fe
GLOBL tanhc_log2e<>(SB), RODATA|NOPTR, $64
DATA tanhc_magic<>+0(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+8(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+16(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+24(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+32(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+40(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+48(SB)/8, $0x4338000000000000
DATA tanhc_magic<>+56(SB)/8, $0x4338000000000000
GLOBL tanhc_magic<>(SB), RODATA|NOPTR, $64
DATA tanhc_ln2hi<>+0(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+8(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+16(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+24(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+32(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+40(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+48(SB)/8, $0x3fe62e42fee00000
DATA tanhc_ln2hi<>+56(SB)/8, $0x3fe62e42fee00000
GLOBL tanhc_ln2hi<>(SB), RODATA|NOPTR, $64
DATA tanhc_ln2lo<>+0(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+8(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+16(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+24(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+32(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+40(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+48(SB)/8, $0x3dea39ef35793c76
DATA tanhc_ln2lo<>+56(SB)/8, $0x3dea39ef35793c76
GLOBL tanhc_ln2lo<>(SB), RODATA|NOPTR, $64
DATA tanhc_e0<>+0(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+8(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+16(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+24(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+32(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+40(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+48(SB)/8, $0x3ff0000000000000
DATA tanhc_e0<>+56(SB)/8, $0x3ff0000000000000
GLOBL tanhc_e0<>(SB), RODATA|NOPTR, $64
DATA tanhc_e1<>+0(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+8(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+16(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+24(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+32(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+40(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+48(SB)/8, $0x3ff0000000000000
DATA tanhc_e1<>+56(SB)/8, $0x3ff0000000000000
GLOBL tanhc_e1<>(SB), RODATA|NOPTR, $64
DATA tanhc_e2<>+0(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+8(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+16(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+24(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+32(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+40(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+48(SB)/8, $0x3fe0000000000000
DATA tanhc_e2<>+56(SB)/8, $0x3fe0000000000000
GLOBL tanhc_e2<>(SB), RODATA|NOPTR, $64
DATA tanhc_e3<>+0(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+8(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+16(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+24(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+32(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+40(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+48(SB)/8, $0x3fc5555555555555
DATA tanhc_e3<>+56(SB)/8, $0x3fc5555555555555
GLOBL tanhc_e3<>(SB), RODATA|NOPTR, $64
DATA tanhc_e4<>+0(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+8(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+16(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+24(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+32(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+40(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+48(SB)/8, $0x3fa5555555555555
DATA tanhc_e4<>+56(SB)/8, $0x3fa5555555555555
GLOBL tanhc_e4<>(SB), RODATA|NOPTR, $64
DATA tanhc_e5<>+0(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+8(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+16(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+24(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+32(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+40(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+48(SB)/8, $0x3f81111111111111
DATA tanhc_e5<>+56(SB)/8, $0x3f81111111111111
GLOBL tanhc_e5<>(SB), RODATA|NOPTR, $64
DATA tanhc_e6<>+0(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+8(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+16(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+24(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+32(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+40(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+48(SB)/8, $0x3f56c16c16c16c17
DATA tanhc_e6<>+56(SB)/8, $0x3f56c16c16c16c17
GLOBL tanhc_e6<>(SB), RODATA|NOPTR, $64
DATA tanhc_e7<>+0(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+8(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+16(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+24(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+32(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+40(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+48(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc_e7<>+56(SB)/8, $0x3f2a01a01a01a01a
GLOBL tanhc_e7<>(SB), RODATA|NOPTR, $64
DATA tanhc_e8<>+0(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+8(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+16(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+24(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+32(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+40(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+48(SB)/8, $0x3efa01a01a01a01a
DATA tanhc_e8<>+56(SB)/8, $0x3efa01a01a01a01a
GLOBL tanhc_e8<>(SB), RODATA|NOPTR, $64
DATA tanhc_e9<>+0(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+8(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+16(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+24(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+32(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+40(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+48(SB)/8, $0x3ec71de3a556c734
DATA tanhc_e9<>+56(SB)/8, $0x3ec71de3a556c734
GLOBL tanhc_e9<>(SB), RODATA|NOPTR, $64
DATA tanhc_e10<>+0(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+8(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+16(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+24(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+32(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+40(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+48(SB)/8, $0x3e927e4fb7789f5c
DATA tanhc_e10<>+56(SB)/8, $0x3e927e4fb7789f5c
GLOBL tanhc_e10<>(SB), RODATA|NOPTR, $64
DATA tanhc_e11<>+0(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+8(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+16(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+24(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+32(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+40(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+48(SB)/8, $0x3e5ae64567f544e4
DATA tanhc_e11<>+56(SB)/8, $0x3e5ae64567f544e4
GLOBL tanhc_e11<>(SB), RODATA|NOPTR, $64
DATA tanhc_e12<>+0(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+8(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+16(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+24(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+32(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+40(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+48(SB)/8, $0x3e21eed8eff8d898
DATA tanhc_e12<>+56(SB)/8, $0x3e21eed8eff8d898
GLOBL tanhc_e12<>(SB), RODATA|NOPTR, $64
DATA tanhc_e13<>+0(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+8(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+16(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+24(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+32(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+40(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+48(SB)/8, $0x3de6124613a86d09
DATA tanhc_e13<>+56(SB)/8, $0x3de6124613a86d09
GLOBL tanhc_e13<>(SB), RODATA|NOPTR, $64
DATA tanhc_bias<>+0(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+8(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+16(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+24(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+32(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+40(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+48(SB)/8, $0x3ff0000000000000
DATA tanhc_bias<>+56(SB)/8, $0x3ff0000000000000
GLOBL tanhc_bias<>(SB), RODATA|NOPTR, $64
DATA tanhc_one<>+0(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+8(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+16(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+24(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+32(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+40(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+48(SB)/8, $0x3ff0000000000000
DATA tanhc_one<>+56(SB)/8, $0x3ff0000000000000
GLOBL tanhc_one<>(SB), RODATA|NOPTR, $64
DATA tanhc_two<>+0(SB)/8, $0x4000000000000000
DATA tanhc_two<>+8(SB)/8, $0x4000000000000000
DATA tanhc_two<>+16(SB)/8, $0x4000000000000000
DATA tanhc_two<>+24(SB)/8, $0x4000000000000000
DATA tanhc_two<>+32(SB)/8, $0x4000000000000000
DATA tanhc_two<>+40(SB)/8, $0x4000000000000000
DATA tanhc_two<>+48(SB)/8, $0x4000000000000000
DATA tanhc_two<>+56(SB)/8, $0x4000000000000000
GLOBL tanhc_two<>(SB), RODATA|NOPTR, $64
DATA tanhc_small<>+0(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+8(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+16(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+24(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+32(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+40(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+48(SB)/8, $0x3fe4000000000000
DATA tanhc_small<>+56(SB)/8, $0x3fe4000000000000
GLOBL tanhc_small<>(SB), RODATA|NOPTR, $64

// func tanhAddAVX2(z, b *float64, n int)
//
// z[i] = tanh(z[i] + b[i]) for i < n, n a multiple of 4; requires AVX2 and FMA.
// With x = z+b, ax = |x|: for ax < 0.625 tanh = x + x·s·P(s)/Q(s), s = x², with the
// Cephes coefficients of Go's math.Tanh; otherwise tanh = sign(x)·(1 - 2/(e^(2a)+1)),
// a = min(ax, 22) (tanh rounds to ±1 beyond 19.1), e^y = 2^m·exp(r) with
// m = round(y·log2 e), r = y - m·ln 2 (Cody-Waite, two-part ln 2) and exp(r) the
// degree-13 Taylor polynomial (|r| ≤ 0.347, truncation < 1e-17) evaluated by Estrin's
// scheme. Both branches run
// for every lane and are blended (sharing one division); NaN propagates, ±0 keeps
// its sign.
TEXT ·tanhAddAVX2(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JEQ  done

loop:
	VMOVUPD (DI), Y0
	VADDPD  (SI), Y0, Y0
	VANDPD  tanhc_absmask<>(SB), Y0, Y1
	VXORPD  Y1, Y0, Y2

	// small branch: Y6 = ax + ax·s·P/Q
	VMULPD      Y1, Y1, Y3
	VMOVUPD     tanhc_tp0<>(SB), Y4
	VFMADD213PD tanhc_tp1<>(SB), Y3, Y4
	VFMADD213PD tanhc_tp2<>(SB), Y3, Y4
	VADDPD      tanhc_tq0<>(SB), Y3, Y5
	VFMADD213PD tanhc_tq1<>(SB), Y3, Y5
	VFMADD213PD tanhc_tq2<>(SB), Y3, Y5
	VMULPD      Y3, Y1, Y6
	VMULPD      Y4, Y6, Y6

	// large branch: Y12 = 1 - 2/(exp(2·min(ax,22))+1)
	VMOVUPD      tanhc_big<>(SB), Y7
	VMINPD       Y1, Y7, Y7
	VADDPD       Y7, Y7, Y7
	VMOVUPD      tanhc_magic<>(SB), Y8
	VFMADD231PD  tanhc_log2e<>(SB), Y7, Y8
	VSUBPD       tanhc_magic<>(SB), Y8, Y9
	VFNMADD231PD tanhc_ln2hi<>(SB), Y9, Y7
	VFNMADD231PD tanhc_ln2lo<>(SB), Y9, Y7
	// exp(r) = Σ_{i≤13} r^i/i! by Estrin's scheme (short dependency chains).
	VMULPD       Y7, Y7, Y11
	VMOVUPD      tanhc_e1<>(SB), Y10
	VFMADD213PD  tanhc_e0<>(SB), Y7, Y10
	VMOVUPD      tanhc_e3<>(SB), Y12
	VFMADD213PD  tanhc_e2<>(SB), Y7, Y12
	VFMADD231PD  Y11, Y12, Y10
	VMOVUPD      tanhc_e5<>(SB), Y12
	VFMADD213PD  tanhc_e4<>(SB), Y7, Y12
	VMOVUPD      tanhc_e7<>(SB), Y13
	VFMADD213PD  tanhc_e6<>(SB), Y7, Y13
	VFMADD231PD  Y11, Y13, Y12
	VMULPD       Y11, Y11, Y14
	VFMADD231PD  Y14, Y12, Y10
	VMOVUPD      tanhc_e9<>(SB), Y12
	VFMADD213PD  tanhc_e8<>(SB), Y7, Y12
	VMOVUPD      tanhc_e11<>(SB), Y13
	VFMADD213PD  tanhc_e10<>(SB), Y7, Y13
	VFMADD231PD  Y11, Y13, Y12
	VMOVUPD      tanhc_e13<>(SB), Y13
	VFMADD213PD  tanhc_e12<>(SB), Y7, Y13
	VFMADD231PD  Y14, Y13, Y12
	VMULPD       Y14, Y14, Y14
	VFMADD231PD  Y14, Y12, Y10
	VPSLLQ       $52, Y8, Y8
	VPADDQ       tanhc_bias<>(SB), Y8, Y8
	VMULPD       Y8, Y10, Y10
	VADDPD       tanhc_one<>(SB), Y10, Y10

	// One division for both branches: q = ax·s·P/Q (small) or 2/(e+1) (large),
	// tanh = ax + q (small) or 1 - q (large).
	VCMPPD    $1, tanhc_small<>(SB), Y1, Y13
	VMOVUPD   tanhc_two<>(SB), Y11
	VBLENDVPD Y13, Y6, Y11, Y11
	VBLENDVPD Y13, Y5, Y10, Y10
	VDIVPD    Y10, Y11, Y11
	VADDPD    Y1, Y11, Y6
	VMOVUPD   tanhc_one<>(SB), Y12
	VSUBPD    Y11, Y12, Y12
	VBLENDVPD Y13, Y6, Y12, Y14
	VORPD     Y2, Y14, Y14
	VMOVUPD   Y14, (DI)

	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func tanhAddAVX512(z, b *float64, n int)
//
// z[i] = tanh(z[i] + b[i]) for i < n, n a multiple of 8; requires AVX-512F. The
// algorithm of tanhAddAVX2 on 8 lanes (the same operations, so the same results).
// With x = z+b, ax = |x|: for ax < 0.625 tanh = x + x·s·P(s)/Q(s), s = x², with the
// Cephes coefficients of Go's math.Tanh; otherwise tanh = sign(x)·(1 - 2/(e^(2a)+1)),
// a = min(ax, 22) (tanh rounds to ±1 beyond 19.1), e^y = 2^m·exp(r) with
// m = round(y·log2 e), r = y - m·ln 2 (Cody-Waite, two-part ln 2) and exp(r) the
// degree-13 Taylor polynomial (|r| ≤ 0.347, truncation < 1e-17) evaluated by Estrin's
// scheme. Both branches run
// for every lane and are blended (sharing one division); NaN propagates, ±0 keeps
// its sign.
TEXT ·tanhAddAVX512(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JEQ  done512

loop512:
	VMOVUPD (DI), Z0
	VADDPD  (SI), Z0, Z0
	VPANDQ  tanhc_absmask<>(SB), Z0, Z1
	VPXORQ  Z1, Z0, Z2

	// small branch: Z6 = ax + ax·s·P/Q
	VMULPD      Z1, Z1, Z3
	VMOVUPD     tanhc_tp0<>(SB), Z4
	VFMADD213PD tanhc_tp1<>(SB), Z3, Z4
	VFMADD213PD tanhc_tp2<>(SB), Z3, Z4
	VADDPD      tanhc_tq0<>(SB), Z3, Z5
	VFMADD213PD tanhc_tq1<>(SB), Z3, Z5
	VFMADD213PD tanhc_tq2<>(SB), Z3, Z5
	VMULPD      Z3, Z1, Z6
	VMULPD      Z4, Z6, Z6

	// large branch: Z12 = 1 - 2/(exp(2·min(ax,22))+1)
	VMOVUPD      tanhc_big<>(SB), Z7
	VMINPD       Z1, Z7, Z7
	VADDPD       Z7, Z7, Z7
	VMOVUPD      tanhc_magic<>(SB), Z8
	VFMADD231PD  tanhc_log2e<>(SB), Z7, Z8
	VSUBPD       tanhc_magic<>(SB), Z8, Z9
	VFNMADD231PD tanhc_ln2hi<>(SB), Z9, Z7
	VFNMADD231PD tanhc_ln2lo<>(SB), Z9, Z7
	// exp(r) = Σ_{i≤13} r^i/i! by Estrin's scheme (short dependency chains).
	VMULPD       Z7, Z7, Z11
	VMOVUPD      tanhc_e1<>(SB), Z10
	VFMADD213PD  tanhc_e0<>(SB), Z7, Z10
	VMOVUPD      tanhc_e3<>(SB), Z12
	VFMADD213PD  tanhc_e2<>(SB), Z7, Z12
	VFMADD231PD  Z11, Z12, Z10
	VMOVUPD      tanhc_e5<>(SB), Z12
	VFMADD213PD  tanhc_e4<>(SB), Z7, Z12
	VMOVUPD      tanhc_e7<>(SB), Z13
	VFMADD213PD  tanhc_e6<>(SB), Z7, Z13
	VFMADD231PD  Z11, Z13, Z12
	VMULPD       Z11, Z11, Z14
	VFMADD231PD  Z14, Z12, Z10
	VMOVUPD      tanhc_e9<>(SB), Z12
	VFMADD213PD  tanhc_e8<>(SB), Z7, Z12
	VMOVUPD      tanhc_e11<>(SB), Z13
	VFMADD213PD  tanhc_e10<>(SB), Z7, Z13
	VFMADD231PD  Z11, Z13, Z12
	VMOVUPD      tanhc_e13<>(SB), Z13
	VFMADD213PD  tanhc_e12<>(SB), Z7, Z13
	VFMADD231PD  Z14, Z13, Z12
	VMULPD       Z14, Z14, Z14
	VFMADD231PD  Z14, Z12, Z10
	VPSLLQ       $52, Z8, Z8
	VPADDQ       tanhc_bias<>(SB), Z8, Z8
	VMULPD       Z8, Z10, Z10
	VADDPD       tanhc_one<>(SB), Z10, Z10

	// One division for both branches: q = ax·s·P/Q (small) or 2/(e+1) (large),
	// tanh = ax + q (small) or 1 - q (large).
	VCMPPD    $1, tanhc_small<>(SB), Z1, K1
	VMOVUPD   tanhc_two<>(SB), Z11
	VBLENDMPD Z6, Z11, K1, Z11
	VBLENDMPD Z5, Z10, K1, Z10
	VDIVPD    Z10, Z11, Z11
	VADDPD    Z1, Z11, Z6
	VMOVUPD   tanhc_one<>(SB), Z12
	VSUBPD    Z11, Z12, Z12
	VBLENDMPD Z6, Z12, K1, Z14
	VPORQ     Z2, Z14, Z14
	VMOVUPD   Z14, (DI)

	ADDQ $64, DI
	ADDQ $64, SI
	DECQ CX
	JNZ  loop512

done512:
	VZEROUPPER
	RET
