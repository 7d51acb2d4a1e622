//go:build !purego

#include "textflag.h"

// Constants of tanhExactAVX2, from the literals of Go's math.Tanh (tanh.go) and
// of its amd64 math.Exp (exp_amd64.s), as the Go compiler rounds them.
DATA tanhc<>+0(SB)/8, $0x404601e678fc457b // halfmaxlog 44.014845965556525
DATA tanhc<>+8(SB)/8, $0x3fe4000000000000 // branch 0.625
DATA tanhc<>+16(SB)/8, $0x3ff71547652b82fe // log2e 1.4426950408889634
DATA tanhc<>+24(SB)/8, $0x3fe62e42fefa3000 // ln2u 0.693147180559663
DATA tanhc<>+32(SB)/8, $0x3d53de6af278ece6 // ln2l 2.8235290563031577e-13
DATA tanhc<>+40(SB)/8, $0x3fb0000000000000 // sixteenth 0.0625
DATA tanhc<>+48(SB)/8, $0x3efa01a01a01a01a // c64 2.48015873015873e-05
DATA tanhc<>+56(SB)/8, $0x3f2a01a01a01a01a // c56 0.0001984126984126984
DATA tanhc<>+64(SB)/8, $0x3f56c16c16c16c17 // c48 0.001388888888888889
DATA tanhc<>+72(SB)/8, $0x3f81111111111111 // c40 0.008333333333333333
DATA tanhc<>+80(SB)/8, $0x3fa5555555555555 // c32 0.041666666666666664
DATA tanhc<>+88(SB)/8, $0x3fc5555555555555 // c24 0.16666666666666666
DATA tanhc<>+96(SB)/8, $0x3fe0000000000000 // half 0.5
DATA tanhc<>+104(SB)/8, $0x3ff0000000000000 // one 1
DATA tanhc<>+112(SB)/8, $0x4000000000000000 // two 2
DATA tanhc<>+120(SB)/8, $0xbfeedc5baafd6f4b // p0 -0.9643991794250523
DATA tanhc<>+128(SB)/8, $0xc058d26a0e26682d // p1 -99.28772310019185
DATA tanhc<>+136(SB)/8, $0xc0993ac030580563 // p2 -1614.6876844170845
DATA tanhc<>+144(SB)/8, $0x405c33f28a581b86 // q0 112.81167849163293
DATA tanhc<>+152(SB)/8, $0x40a176fa0e5535fa // q1 2235.4883906010045
DATA tanhc<>+160(SB)/8, $0x40b2ec102442040c // q2 4844.063053251255
DATA tanhc<>+168(SB)/8, $0x7fffffffffffffff // |x| mask
DATA tanhc<>+176(SB)/8, $0x8000000000000000 // sign bit
DATA tanhc<>+184(SB)/8, $1023 // exponent bias
GLOBL tanhc<>(SB), RODATA|NOPTR, $192

// func tanhExactAVX2(dst, x *float64, n int)
//
// dst[i] = math.Tanh(x[i]) bit for bit for i < n, n a multiple of 4 (the
// caller passes n &^ 3): Go's tanh.go four lanes at a time, every branch
// computed and the lanes' own selected — |x| > MAXLOG/2 gives ±1; |x| ≥ 0.625
// gives 1 − 2/(exp(2|x|)+1) with x's sign, exp by the FMA path of Go's
// exp_amd64.s (k = round(t·log2e), t − k·ln2 in two fused steps, the Taylor
// polynomial of e^(r/16) − 1 by fused Horner steps, four squarings of
// (1 + y)² − 1 = y·(y + 2), the last fused with + 1, then ×2^k); smaller |x|
// gives x + x·s·P(s)/Q(s), s = x², by plain products and sums; x = ±0 gives x.
// The argument of exp here is at most MAXLOG, so exp_amd64.s's overflow and
// subnormal branches never apply. Requires AVX2 and FMA (math.Exp takes its
// FMA path on such a CPU).
TEXT ·tanhExactAVX2(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	SHRQ         $2, CX
	JEQ          tedone
	VBROADCASTSD tanhc<>+168(SB), Y15 // |x| mask
	VBROADCASTSD tanhc<>+176(SB), Y14 // sign bit
	VBROADCASTSD tanhc<>+104(SB), Y13 // 1
	VBROADCASTSD tanhc<>+112(SB), Y12 // 2
	VPBROADCASTQ tanhc<>+184(SB), Y11 // 1023

teloop:
	VMOVUPD      (SI), Y0
	VANDPD       Y15, Y0, Y1          // z = |x|
	VANDPD       Y14, Y0, Y2          // x's sign bit

	// s = exp(2z)
	VADDPD       Y1, Y1, Y3           // t = 2z (exact)
	VBROADCASTSD tanhc<>+16(SB), Y4
	VMULPD       Y4, Y3, Y4           // t·log2e
	VCVTPD2DQY   Y4, X5               // k, rounded to nearest (CVTSD2SL)
	VCVTDQ2PD    X5, Y4
	VBROADCASTSD tanhc<>+24(SB), Y6
	VFNMADD231PD Y6, Y4, Y3           // t − k·ln2u
	VBROADCASTSD tanhc<>+32(SB), Y6
	VFNMADD231PD Y6, Y4, Y3           // − k·ln2l
	VBROADCASTSD tanhc<>+40(SB), Y6
	VMULPD       Y6, Y3, Y3           // r = ·/16
	VBROADCASTSD tanhc<>+48(SB), Y6   // P = c64
	VBROADCASTSD tanhc<>+56(SB), Y7
	VFMADD213PD  Y7, Y3, Y6           // P = r·P + c56
	VBROADCASTSD tanhc<>+64(SB), Y7
	VFMADD213PD  Y7, Y3, Y6
	VBROADCASTSD tanhc<>+72(SB), Y7
	VFMADD213PD  Y7, Y3, Y6
	VBROADCASTSD tanhc<>+80(SB), Y7
	VFMADD213PD  Y7, Y3, Y6
	VBROADCASTSD tanhc<>+88(SB), Y7
	VFMADD213PD  Y7, Y3, Y6
	VBROADCASTSD tanhc<>+96(SB), Y7
	VFMADD213PD  Y7, Y3, Y6           // + 0.5
	VFMADD213PD  Y13, Y3, Y6          // + 1
	VMULPD       Y6, Y3, Y3           // y = r·P
	VADDPD       Y12, Y3, Y6
	VMULPD       Y6, Y3, Y3           // y = y·(y + 2), three times
	VADDPD       Y12, Y3, Y6
	VMULPD       Y6, Y3, Y3
	VADDPD       Y12, Y3, Y6
	VMULPD       Y6, Y3, Y3
	VADDPD       Y12, Y3, Y6
	VFMADD213PD  Y13, Y6, Y3          // (y + 2)·y + 1
	VPMOVSXDQ    X5, Y6
	VPADDQ       Y11, Y6, Y6
	VPSLLQ       $52, Y6, Y6          // 2^k
	VMULPD       Y6, Y3, Y3           // s

	// middle branch: 1 − 2/(s + 1), x's sign
	VADDPD       Y13, Y3, Y3
	VDIVPD       Y3, Y12, Y3
	VSUBPD       Y3, Y13, Y3
	VXORPD       Y2, Y3, Y3

	// small branch: x + x·s·P(s)/Q(s), s = x²
	VMULPD       Y0, Y0, Y4           // s
	VBROADCASTSD tanhc<>+120(SB), Y6
	VMULPD       Y4, Y6, Y6           // p0·s
	VBROADCASTSD tanhc<>+128(SB), Y7
	VADDPD       Y7, Y6, Y6           // + p1
	VMULPD       Y4, Y6, Y6
	VBROADCASTSD tanhc<>+136(SB), Y7
	VADDPD       Y7, Y6, Y6           // + p2
	VBROADCASTSD tanhc<>+144(SB), Y7
	VADDPD       Y7, Y4, Y7           // s + q0
	VMULPD       Y4, Y7, Y7
	VBROADCASTSD tanhc<>+152(SB), Y8
	VADDPD       Y8, Y7, Y7           // + q1
	VMULPD       Y4, Y7, Y7
	VBROADCASTSD tanhc<>+160(SB), Y8
	VADDPD       Y8, Y7, Y7           // + q2
	VMULPD       Y4, Y0, Y8           // x·s
	VMULPD       Y6, Y8, Y8           // ·P
	VDIVPD       Y7, Y8, Y8           // /Q
	VADDPD       Y8, Y0, Y8           // x + ·

	// each lane's branch
	VBROADCASTSD tanhc<>+8(SB), Y6
	VCMPPD       $0x1d, Y6, Y1, Y7    // z ≥ 0.625
	VBLENDVPD    Y7, Y3, Y8, Y8
	VBROADCASTSD tanhc<>+0(SB), Y6
	VCMPPD       $0x1e, Y6, Y1, Y7    // z > MAXLOG/2
	VORPD        Y2, Y13, Y6          // ±1
	VBLENDVPD    Y7, Y6, Y8, Y8
	VXORPD       Y6, Y6, Y6
	VCMPPD       $0x00, Y6, Y0, Y7    // x = ±0
	VBLENDVPD    Y7, Y0, Y8, Y8
	VMOVUPD      Y8, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          teloop

tedone:
	VZEROUPPER
	RET
