//go:build amd64 && !purego

#include "textflag.h"

// func countCmp(x []float64, t float64, strict bool) int
//
// Returns #{i : x[i] < t} if strict, else #{i : x[i] ≤ t}, with Go's float
// comparisons (ordered: a NaN on either side compares false). Eight values
// per step in two AVX2 registers, then one at a time: VCMPPD yields all ones
// (−1) where the comparison holds, subtracted from eight 64-bit counters.
// Requires AVX2.
TEXT ·countCmp(SB), NOSPLIT, $0-48
	MOVQ    x_base+0(FP), SI
	MOVQ    x_len+8(FP), CX
	MOVSD   t+24(FP), X0
	MOVBQZX strict+32(FP), R8
	VBROADCASTSD X0, Y0
	VPXOR   Y1, Y1, Y1
	VPXOR   Y2, Y2, Y2
	XORQ    AX, AX
	MOVQ    CX, DX
	ANDQ    $-8, DX
	TESTQ   R8, R8
	JNZ     lt8

le8:
	CMPQ    AX, DX
	JGE     tail
	VMOVUPD (SI)(AX*8), Y3
	VMOVUPD 32(SI)(AX*8), Y4
	VCMPPD  $2, Y0, Y3, Y3 // x ≤ t, ordered (LE_OS)
	VCMPPD  $2, Y0, Y4, Y4
	VPSUBQ  Y3, Y1, Y1
	VPSUBQ  Y4, Y2, Y2
	ADDQ    $8, AX
	JMP     le8

lt8:
	CMPQ    AX, DX
	JGE     tail
	VMOVUPD (SI)(AX*8), Y3
	VMOVUPD 32(SI)(AX*8), Y4
	VCMPPD  $1, Y0, Y3, Y3 // x < t, ordered (LT_OS)
	VCMPPD  $1, Y0, Y4, Y4
	VPSUBQ  Y3, Y1, Y1
	VPSUBQ  Y4, Y2, Y2
	ADDQ    $8, AX
	JMP     lt8

tail:
	VPADDQ       Y2, Y1, Y1
	VEXTRACTI128 $1, Y1, X2
	VPADDQ       X2, X1, X1
	VPSHUFD      $0x4e, X1, X2
	VPADDQ       X2, X1, X1
	MOVQ         X1, R9

tailloop:
	CMPQ    AX, CX
	JGE     done
	MOVSD   (SI)(AX*8), X3
	TESTQ   R8, R8
	JNZ     tlt
	UCOMISD X0, X3 // flags of x against t; unordered sets PF
	JP      next
	JA      next   // x > t
	INCQ    R9
	JMP     next

tlt:
	UCOMISD X0, X3
	JP      next
	JAE     next // x ≥ t
	INCQ    R9

next:
	INCQ AX
	JMP  tailloop

done:
	VZEROUPPER
	MOVQ R9, ret+40(FP)
	RET

// func minInto(mn, row []float64)
//
// mn[j] = row[j] where row[j] < mn[j] (Go's ordered comparison: a NaN in
// row never wins), for j < len(mn) ≤ len(row): VMINPD's first source wins
// only when it compares below the second, else the second is kept. Eight
// values per step, then one at a time. Requires AVX2.
TEXT ·minInto(SB), NOSPLIT, $0-48
	MOVQ mn_base+0(FP), DI
	MOVQ mn_len+8(FP), CX
	MOVQ row_base+24(FP), SI
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-8, DX

min8:
	CMPQ    AX, DX
	JGE     min1
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMINPD  (DI)(AX*8), Y0, Y0
	VMINPD  32(DI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     min8

min1:
	CMPQ  AX, CX
	JGE   mindone
	MOVSD (SI)(AX*8), X0
	MINSD (DI)(AX*8), X0
	MOVSD X0, (DI)(AX*8)
	INCQ  AX
	JMP   min1

mindone:
	VZEROUPPER
	RET
