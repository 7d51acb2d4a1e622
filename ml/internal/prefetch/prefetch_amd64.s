//go:build amd64 && !purego

#include "textflag.h"

// func bytes(p unsafe.Pointer, n int)
//
// One PREFETCHT0 per 64 bytes from p, and one at the last byte (whose line
// the others miss when p is not on a line's start). n ≥ 1.
TEXT ·bytes(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	LEAQ -1(AX)(CX*1), CX

loop:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, CX
	JB         loop
	PREFETCHT0 (CX)
	RET
