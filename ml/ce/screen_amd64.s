//go:build amd64 && !purego

#include "textflag.h"

// Single-precision kernels of the screening pass (screen.go). Their results
// are not the exact ones: screen.go bounds their error and the evaluation
// recomputes exactly wherever that error could change a rank.

// func gemm8x32(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int)
//
// C[o][t] = Σ_{p<k} W[o][p]·Z[p][t] for o < 8 and t < 32, where W row o
// starts at w + o·wrs, Z row p at z + p·zs and C row o at c + o·cs (strides
// in bytes; W's elements are consecutive). Each sum runs in increasing p by
// fused multiply-adds from 0. k ≥ 1. Requires AVX-512F.
TEXT ·gemm8x32(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wrs+16(FP), R8
	MOVQ z+24(FP), DI
	MOVQ zs+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ cs+48(FP), R11
	LEAQ (R8)(R8*2), R14
	LEAQ (SI)(R8*4), R13

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

g32loop:
	VMOVUPS      (DI), Z16
	VMOVUPS      64(DI), Z17
	VBROADCASTSS (SI), Z18
	VBROADCASTSS (SI)(R8*1), Z19
	VBROADCASTSS (SI)(R8*2), Z20
	VBROADCASTSS (SI)(R14*1), Z21
	VBROADCASTSS (R13), Z22
	VBROADCASTSS (R13)(R8*1), Z23
	VBROADCASTSS (R13)(R8*2), Z24
	VBROADCASTSS (R13)(R14*1), Z25
	VFMADD231PS  Z16, Z18, Z0
	VFMADD231PS  Z17, Z18, Z1
	VFMADD231PS  Z16, Z19, Z2
	VFMADD231PS  Z17, Z19, Z3
	VFMADD231PS  Z16, Z20, Z4
	VFMADD231PS  Z17, Z20, Z5
	VFMADD231PS  Z16, Z21, Z6
	VFMADD231PS  Z17, Z21, Z7
	VFMADD231PS  Z16, Z22, Z8
	VFMADD231PS  Z17, Z22, Z9
	VFMADD231PS  Z16, Z23, Z10
	VFMADD231PS  Z17, Z23, Z11
	VFMADD231PS  Z16, Z24, Z12
	VFMADD231PS  Z17, Z24, Z13
	VFMADD231PS  Z16, Z25, Z14
	VFMADD231PS  Z17, Z25, Z15
	ADDQ         $4, SI
	ADDQ         $4, R13
	ADDQ         R9, DI
	DECQ         CX
	JNZ          g32loop

	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z2, (DX)
	VMOVUPS Z3, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z8, (DX)
	VMOVUPS Z9, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z10, (DX)
	VMOVUPS Z11, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z12, (DX)
	VMOVUPS Z13, 64(DX)
	ADDQ    R11, DX
	VMOVUPS Z14, (DX)
	VMOVUPS Z15, 64(DX)
	VZEROUPPER
	RET

// func tanhBias32(dst, src *float32, ds, ss int, bias *float32, rows, cols int)
//
// dst[r][t] = tanh(src[r][t] + bias[r]) for r < rows and t < cols, cols a
// positive multiple of 16, rows at dst + r·ds and src + r·ss (bytes; dst may
// be src). tanh(x) = 1 − 2/(e^{2x} + 1) with x clamped to [−9, 9]; e^{2x} =
// 2^n·e^r, n = round(2x·log₂e), r = 2x − n·ln 2 (ln 2 in two parts), e^r by its
// Taylor polynomial of degree 7 (|r| ≤ ln 2 / 2); 1/(e^{2x} + 1) by the
// 14-bit reciprocal and one Newton step. Its absolute error is measured by
// TestTanh32 and bounded in screen.go (tanh32Err). Requires AVX-512F.
TEXT ·tanhBias32(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ds+16(FP), R8
	MOVQ ss+24(FP), R9
	MOVQ bias+32(FP), DX
	MOVQ rows+40(FP), R10
	MOVQ cols+48(FP), R11
	SHRQ $4, R11
	TESTQ R10, R10
	JEQ  t32done
	TESTQ R11, R11
	JEQ  t32done

	VBROADCASTSS t32_hi<>(SB), Z20
	VBROADCASTSS t32_lo<>(SB), Z21
	VBROADCASTSS t32_log2e<>(SB), Z22
	VBROADCASTSS t32_ln2hi<>(SB), Z23
	VBROADCASTSS t32_ln2lo<>(SB), Z24
	VBROADCASTSS t32_one<>(SB), Z25
	VBROADCASTSS t32_c7<>(SB), Z26
	VBROADCASTSS t32_c6<>(SB), Z27
	VBROADCASTSS t32_c5<>(SB), Z28
	VBROADCASTSS t32_c4<>(SB), Z29
	VBROADCASTSS t32_c3<>(SB), Z30
	VBROADCASTSS t32_c2<>(SB), Z31
	VBROADCASTSS t32_two<>(SB), Z19

t32row:
	VBROADCASTSS (DX), Z18
	MOVQ         SI, AX
	MOVQ         DI, BX
	MOVQ         R11, CX

t32col:
	VADDPS       (AX), Z18, Z0
	VMINPS       Z20, Z0, Z0
	VMAXPS       Z21, Z0, Z0
	VADDPS       Z0, Z0, Z0          // 2x
	VMULPS       Z22, Z0, Z1
	VRNDSCALEPS  $0, Z1, Z1          // n = round(2x·log₂e)
	VMOVAPS      Z0, Z2
	VFNMADD231PS Z23, Z1, Z2         // r = 2x − n·ln2hi
	VFNMADD231PS Z24, Z1, Z2         //     − n·ln2lo
	VMOVAPS      Z26, Z3             // Horner: c7
	VFMADD213PS  Z27, Z2, Z3         // c7·r + c6
	VFMADD213PS  Z28, Z2, Z3
	VFMADD213PS  Z29, Z2, Z3
	VFMADD213PS  Z30, Z2, Z3
	VFMADD213PS  Z31, Z2, Z3         // … + 1/2
	VFMADD213PS  Z25, Z2, Z3         // … + 1
	VFMADD213PS  Z25, Z2, Z3         // … + 1 = e^r
	VSCALEFPS    Z1, Z3, Z3          // e^{2x} = e^r·2^n
	VADDPS       Z25, Z3, Z3         // d = e^{2x} + 1
	VRCP14PS     Z3, Z4              // y ≈ 1/d
	VMOVAPS      Z25, Z5
	VFNMADD231PS Z3, Z4, Z5          // 1 − d·y
	VFMADD231PS  Z5, Z4, Z4          // y + y·(1 − d·y)
	VMOVAPS      Z25, Z6
	VFNMADD231PS Z19, Z4, Z6         // 1 − 2y
	VMOVUPS      Z6, (BX)
	ADDQ         $64, AX
	ADDQ         $64, BX
	DECQ         CX
	JNZ          t32col
	ADDQ         $4, DX
	ADDQ         R9, SI
	ADDQ         R8, DI
	DECQ         R10
	JNZ          t32row

t32done:
	VZEROUPPER
	RET

DATA t32_hi<>+0(SB)/4, $0x41100000
GLOBL t32_hi<>(SB), RODATA|NOPTR, $4
DATA t32_lo<>+0(SB)/4, $0xc1100000
GLOBL t32_lo<>(SB), RODATA|NOPTR, $4
DATA t32_log2e<>+0(SB)/4, $0x3fb8aa3b // log₂e rounded to float32
GLOBL t32_log2e<>(SB), RODATA|NOPTR, $4
DATA t32_ln2hi<>+0(SB)/4, $0x3f317200 // 0.693145752 (ln 2, the high part)
GLOBL t32_ln2hi<>(SB), RODATA|NOPTR, $4
DATA t32_ln2lo<>+0(SB)/4, $0x35bfbe8e // 1.42860677e-6 (ln 2 − high part)
GLOBL t32_ln2lo<>(SB), RODATA|NOPTR, $4
DATA t32_one<>+0(SB)/4, $0x3f800000
GLOBL t32_one<>(SB), RODATA|NOPTR, $4
DATA t32_two<>+0(SB)/4, $0x40000000
GLOBL t32_two<>(SB), RODATA|NOPTR, $4
DATA t32_c2<>+0(SB)/4, $0x3f000000
GLOBL t32_c2<>(SB), RODATA|NOPTR, $4
DATA t32_c3<>+0(SB)/4, $0x3e2aaaab // 1/6
GLOBL t32_c3<>(SB), RODATA|NOPTR, $4
DATA t32_c4<>+0(SB)/4, $0x3d2aaaab // 1/24
GLOBL t32_c4<>(SB), RODATA|NOPTR, $4
DATA t32_c5<>+0(SB)/4, $0x3c088889 // 1/120
GLOBL t32_c5<>(SB), RODATA|NOPTR, $4
DATA t32_c6<>+0(SB)/4, $0x3ab60b61 // 1/720
GLOBL t32_c6<>(SB), RODATA|NOPTR, $4
DATA t32_c7<>+0(SB)/4, $0x39500d01 // 1/5040
GLOBL t32_c7<>(SB), RODATA|NOPTR, $4

// func dist32(ce *float32, cs int, q *float32, d int, out *float32, cols int)
//
// out[t] = √(Σ_{i<d} (ce[i][t] − q[i])²) for t < cols, cols a positive
// multiple of 64, ce row i at ce + i·cs (bytes): each difference rounded,
// then squared and added by a fused multiply-add, in increasing i from 0,
// one lane per t. d ≥ 1. Requires AVX-512F.
TEXT ·dist32(SB), NOSPLIT, $0-48
	MOVQ ce+0(FP), SI
	MOVQ cs+8(FP), R8
	MOVQ q+16(FP), DX
	MOVQ d+24(FP), R9
	MOVQ out+32(FP), DI
	MOVQ cols+40(FP), R10
	SHRQ $6, R10

d32blk:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   SI, AX
	XORQ   CX, CX

d32dim:
	VBROADCASTSS (DX)(CX*4), Z4
	VSUBPS       (AX), Z4, Z5
	VSUBPS       64(AX), Z4, Z6
	VSUBPS       128(AX), Z4, Z7
	VSUBPS       192(AX), Z4, Z8
	VFMADD231PS  Z5, Z5, Z0
	VFMADD231PS  Z6, Z6, Z1
	VFMADD231PS  Z7, Z7, Z2
	VFMADD231PS  Z8, Z8, Z3
	ADDQ         R8, AX
	INCQ         CX
	CMPQ         CX, R9
	JLT          d32dim

	VSQRTPS Z0, Z0
	VSQRTPS Z1, Z1
	VSQRTPS Z2, Z2
	VSQRTPS Z3, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ    $256, SI
	ADDQ    $256, DI
	DECQ    R10
	JNZ     d32blk
	VZEROUPPER
	RET

// The AVX2 kernels: the same contracts as the AVX-512 ones above, for
// processors with AVX2 and FMA but not AVX-512, eight lanes at a time.
// gemm8x32AVX2 and dist32AVX2 give the AVX-512 kernels' bits (the same fused
// multiply-adds in the same order, one lane per column); tanhBias32AVX2
// divides where the AVX-512 kernel refines a 14-bit reciprocal, so its error
// is measured on its own (TestTanh32).

// func gemm8x32AVX2(k int, w *float32, wrs int, z *float32, zs int, c *float32, cs int)
//
// gemm8x32's contract: C[o][t] = Σ_{p<k} W[o][p]·Z[p][t] for o < 8 and t < 32,
// each sum by fused multiply-adds in increasing p from 0. The tile is done as
// four of 4 rows × 16 columns (eight accumulators each). k ≥ 1. Requires AVX2
// and FMA.
TEXT ·gemm8x32AVX2(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wrs+16(FP), R8
	MOVQ z+24(FP), DI
	MOVQ zs+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ cs+48(FP), R11
	LEAQ (R8)(R8*2), R14
	XORQ R12, R12

g2tile:
	// Tile R12: rows 4·(R12 ≥ 2) on, columns 16·(R12 mod 2) on.
	MOVQ R12, AX
	ANDQ $1, AX
	SHLQ $6, AX
	MOVQ DI, BX
	ADDQ AX, BX
	MOVQ DX, R10
	ADDQ AX, R10
	MOVQ SI, R13
	CMPQ R12, $2
	JLT  g2top
	LEAQ (SI)(R8*4), R13
	MOVQ R11, AX
	SHLQ $2, AX
	ADDQ AX, R10

g2top:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   CX, AX

g2loop:
	VMOVUPS      (BX), Y8
	VMOVUPS      32(BX), Y9
	VBROADCASTSS (R13), Y10
	VBROADCASTSS (R13)(R8*1), Y11
	VBROADCASTSS (R13)(R8*2), Y12
	VBROADCASTSS (R13)(R14*1), Y13
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, R13
	ADDQ         R9, BX
	DECQ         AX
	JNZ          g2loop

	VMOVUPS Y0, (R10)
	VMOVUPS Y1, 32(R10)
	ADDQ    R11, R10
	VMOVUPS Y2, (R10)
	VMOVUPS Y3, 32(R10)
	ADDQ    R11, R10
	VMOVUPS Y4, (R10)
	VMOVUPS Y5, 32(R10)
	ADDQ    R11, R10
	VMOVUPS Y6, (R10)
	VMOVUPS Y7, 32(R10)
	INCQ    R12
	CMPQ    R12, $4
	JLT     g2tile
	VZEROUPPER
	RET

// func tanhBias32AVX2(dst, src *float32, ds, ss int, bias *float32, rows, cols int)
//
// tanhBias32's contract and method (x clamped to [−9, 9], e^{2x} = 2^n·e^r
// with the same reduction and polynomial), eight lanes at a time; 2^n is
// built from its exponent bits (n is an integer in [−26, 26], so e^r·2^n is
// the exact product VSCALEFPS gives) and 1/(e^{2x} + 1) is a correctly
// rounded division. cols a positive multiple of 16. Requires AVX2 and FMA.
TEXT ·tanhBias32AVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ds+16(FP), R8
	MOVQ ss+24(FP), R9
	MOVQ bias+32(FP), DX
	MOVQ rows+40(FP), R10
	MOVQ cols+48(FP), R11
	SHRQ $3, R11
	TESTQ R10, R10
	JEQ  t2done
	TESTQ R11, R11
	JEQ  t2done

	VBROADCASTSS t32_hi<>(SB), Y14
	VBROADCASTSS t32_lo<>(SB), Y13
	VBROADCASTSS t32_log2e<>(SB), Y12
	VBROADCASTSS t32_ln2hi<>(SB), Y11
	VBROADCASTSS t32_ln2lo<>(SB), Y10
	VBROADCASTSS t32_one<>(SB), Y9
	VBROADCASTSS t32_two<>(SB), Y8
	VBROADCASTSS t32_c7<>(SB), Y7
	VBROADCASTSS t32_c2<>(SB), Y6

t2row:
	VBROADCASTSS (DX), Y15
	MOVQ         SI, AX
	MOVQ         DI, BX
	MOVQ         R11, CX

t2col:
	VADDPS       (AX), Y15, Y0
	VMINPS       Y14, Y0, Y0
	VMAXPS       Y13, Y0, Y0
	VADDPS       Y0, Y0, Y0          // 2x
	VMULPS       Y12, Y0, Y1
	VROUNDPS     $0, Y1, Y1          // n = round(2x·log₂e), ties to even
	VMOVAPS      Y0, Y2
	VFNMADD231PS Y11, Y1, Y2         // r = 2x − n·ln2hi
	VFNMADD231PS Y10, Y1, Y2         //     − n·ln2lo
	VMOVAPS      Y7, Y3              // Horner: c7
	VFMADD213PS  t8_c6<>(SB), Y2, Y3 // c7·r + c6
	VFMADD213PS  t8_c5<>(SB), Y2, Y3
	VFMADD213PS  t8_c4<>(SB), Y2, Y3
	VFMADD213PS  t8_c3<>(SB), Y2, Y3
	VFMADD213PS  Y6, Y2, Y3          // … + 1/2
	VFMADD213PS  Y9, Y2, Y3          // … + 1
	VFMADD213PS  Y9, Y2, Y3          // … + 1 = e^r
	VCVTPS2DQ    Y1, Y4              // n as an integer (exact: n is integral)
	VPSLLD       $23, Y4, Y4
	VPADDD       Y9, Y4, Y4          // the bits of 2^n: (n + 127)·2^23
	VMULPS       Y4, Y3, Y3          // e^{2x} = e^r·2^n
	VADDPS       Y9, Y3, Y3          // d = e^{2x} + 1
	VDIVPS       Y3, Y9, Y4          // y = 1/d
	VMOVAPS      Y9, Y5
	VFNMADD231PS Y8, Y4, Y5          // 1 − 2y
	VMOVUPS      Y5, (BX)
	ADDQ         $32, AX
	ADDQ         $32, BX
	DECQ         CX
	JNZ          t2col
	ADDQ         $4, DX
	ADDQ         R9, SI
	ADDQ         R8, DI
	DECQ         R10
	JNZ          t2row

t2done:
	VZEROUPPER
	RET

// The Horner coefficients of tanhBias32AVX2 taken from memory, eight copies
// each (AVX2's fused multiply-add reads a whole vector): the values of
// t32_c6 … t32_c3.
DATA t8_c6<>+0(SB)/8, $0x3ab60b613ab60b61
DATA t8_c6<>+8(SB)/8, $0x3ab60b613ab60b61
DATA t8_c6<>+16(SB)/8, $0x3ab60b613ab60b61
DATA t8_c6<>+24(SB)/8, $0x3ab60b613ab60b61
GLOBL t8_c6<>(SB), RODATA|NOPTR, $32
DATA t8_c5<>+0(SB)/8, $0x3c0888893c088889
DATA t8_c5<>+8(SB)/8, $0x3c0888893c088889
DATA t8_c5<>+16(SB)/8, $0x3c0888893c088889
DATA t8_c5<>+24(SB)/8, $0x3c0888893c088889
GLOBL t8_c5<>(SB), RODATA|NOPTR, $32
DATA t8_c4<>+0(SB)/8, $0x3d2aaaab3d2aaaab
DATA t8_c4<>+8(SB)/8, $0x3d2aaaab3d2aaaab
DATA t8_c4<>+16(SB)/8, $0x3d2aaaab3d2aaaab
DATA t8_c4<>+24(SB)/8, $0x3d2aaaab3d2aaaab
GLOBL t8_c4<>(SB), RODATA|NOPTR, $32
DATA t8_c3<>+0(SB)/8, $0x3e2aaaab3e2aaaab
DATA t8_c3<>+8(SB)/8, $0x3e2aaaab3e2aaaab
DATA t8_c3<>+16(SB)/8, $0x3e2aaaab3e2aaaab
DATA t8_c3<>+24(SB)/8, $0x3e2aaaab3e2aaaab
GLOBL t8_c3<>(SB), RODATA|NOPTR, $32

// func dist32AVX2(ce *float32, cs int, q *float32, d int, out *float32, cols int)
//
// dist32's contract: out[t] = √(Σ_{i<d} (ce[i][t] − q[i])²) for t < cols,
// cols a positive multiple of 64, each difference rounded, then squared and
// added by a fused multiply-add in increasing i from 0. d ≥ 1. Requires AVX2
// and FMA.
TEXT ·dist32AVX2(SB), NOSPLIT, $0-48
	MOVQ ce+0(FP), SI
	MOVQ cs+8(FP), R8
	MOVQ q+16(FP), DX
	MOVQ d+24(FP), R9
	MOVQ out+32(FP), DI
	MOVQ cols+40(FP), R10
	SHRQ $6, R10

d2blk:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   SI, AX
	XORQ   CX, CX

d2dim:
	VBROADCASTSS (DX)(CX*4), Y8
	VSUBPS       (AX), Y8, Y9
	VSUBPS       32(AX), Y8, Y10
	VSUBPS       64(AX), Y8, Y11
	VSUBPS       96(AX), Y8, Y12
	VFMADD231PS  Y9, Y9, Y0
	VFMADD231PS  Y10, Y10, Y1
	VFMADD231PS  Y11, Y11, Y2
	VFMADD231PS  Y12, Y12, Y3
	VSUBPS       128(AX), Y8, Y9
	VSUBPS       160(AX), Y8, Y10
	VSUBPS       192(AX), Y8, Y11
	VSUBPS       224(AX), Y8, Y12
	VFMADD231PS  Y9, Y9, Y4
	VFMADD231PS  Y10, Y10, Y5
	VFMADD231PS  Y11, Y11, Y6
	VFMADD231PS  Y12, Y12, Y7
	ADDQ         R8, AX
	INCQ         CX
	CMPQ         CX, R9
	JLT          d2dim

	VSQRTPS Y0, Y0
	VSQRTPS Y1, Y1
	VSQRTPS Y2, Y2
	VSQRTPS Y3, Y3
	VSQRTPS Y4, Y4
	VSQRTPS Y5, Y5
	VSQRTPS Y6, Y6
	VSQRTPS Y7, Y7
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, SI
	ADDQ    $256, DI
	DECQ    R10
	JNZ     d2blk
	VZEROUPPER
	RET
