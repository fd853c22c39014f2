#include "textflag.h"

// The byte reversal of a block, for VPSHUFB.
DATA bswap<>+0(SB)/8, $0x08090a0b0c0d0e0f
DATA bswap<>+8(SB)/8, $0x0001020304050607
GLOBL bswap<>(SB), RODATA|NOPTR, $16

// poly (elem.go) in both halves.
DATA gfpoly<>+0(SB)/8, $0xc200000000000000
DATA gfpoly<>+8(SB)/8, $0xc200000000000000
GLOBL gfpoly<>(SB), RODATA|NOPTR, $16

// REDUCE folds the unreduced product LO, MI, HI (X registers) into HI, as its model
// elem.mul (elem_test.go) does; X15 holds gfpoly, T is a scratch register.
#define REDUCE(LO, MI, HI, T) \
	VPCLMULQDQ $0x00, X15, LO, T \
	VPSHUFD    $0x4e, LO, LO \
	VPXOR      LO, MI, MI \
	VPXOR      T, MI, MI \
	VPCLMULQDQ $0x00, X15, MI, T \
	VPSHUFD    $0x4e, MI, MI \
	VPXOR      MI, HI, HI \
	VPXOR      T, HI, HI

// SAME_HALVES sums into ACC the products of the 32 blocks (Z0, Z2-Z4, Z24-Z27) and their
// powers of H (Z20-Z23, Z16-Z19) taken between the halves IMM selects: $0x00 the low
// ones, $0x11 the high ones. Z6-Z8 are scratch.
#define SAME_HALVES(IMM, ACC) \
	VPCLMULQDQ IMM, Z20, Z0, ACC \
	VPCLMULQDQ IMM, Z21, Z2, Z6 \
	VPCLMULQDQ IMM, Z22, Z3, Z7 \
	VPCLMULQDQ IMM, Z23, Z4, Z8 \
	VPTERNLOGD $0x96, Z6, Z7, ACC \
	VPCLMULQDQ IMM, Z16, Z24, Z6 \
	VPCLMULQDQ IMM, Z17, Z25, Z7 \
	VPTERNLOGD $0x96, Z6, Z8, ACC \
	VPCLMULQDQ IMM, Z18, Z26, Z6 \
	VPCLMULQDQ IMM, Z19, Z27, Z8 \
	VPTERNLOGD $0x96, Z6, Z7, ACC \
	VPXORQ     Z8, ACC, ACC

// FOLD_LANES sums the four 128-bit lanes of one register, named Z, Y and X at its three
// widths, into its lowest; Y6 is scratch.
#define FOLD_LANES(Z, Y, X) \
	VEXTRACTI64X4 $1, Z, Y6 \
	VPXOR         Y6, Y, Y \
	VEXTRACTI128  $1, Y, X6 \
	VPXOR         X6, X, X

// SUM_REDUCE sums the four lanes of the products in Z5, Z13 and Z9 and reduces them into
// y (X1).
#define SUM_REDUCE \
	FOLD_LANES(Z5, Y5, X5) \
	FOLD_LANES(Z9, Y9, X9) \
	FOLD_LANES(Z13, Y13, X13) \
	REDUCE(X5, X13, X9, X6) \
	VMOVDQU X9, X1

// func ghashWide(y *elem, pow *[powers]elem, p *byte, n int)
TEXT ·ghashWide(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ pow+8(FP), AX
	MOVQ p+16(FP), SI
	MOVQ n+24(FP), CX

	VMOVDQU        (DI), X1 // y; the VEX load clears the rest of Z1
	VMOVDQU        gfpoly<>(SB), X15
	VBROADCASTI32X4 bswap<>(SB), Z31
	VMOVDQU64      0(AX), Z20 // H^32 .. H^29
	VMOVDQU64      64(AX), Z21
	VMOVDQU64      128(AX), Z22
	VMOVDQU64      192(AX), Z23 // H^20 .. H^17
	VMOVDQU64      256(AX), Z16 // H^16 .. H^13
	VMOVDQU64      320(AX), Z17
	VMOVDQU64      384(AX), Z18
	VMOVDQU64      448(AX), Z19 // H^4 .. H^1

	CMPQ CX, $512
	JB   single

wide:
	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z2
	VMOVDQU64 128(SI), Z3
	VMOVDQU64 192(SI), Z4
	VPSHUFB   Z31, Z0, Z0
	VPSHUFB   Z31, Z2, Z2
	VPSHUFB   Z31, Z3, Z3
	VPSHUFB   Z31, Z4, Z4
	VPXORQ    Z1, Z0, Z0 // y into the first block
	VMOVDQU64 256(SI), Z24
	VMOVDQU64 320(SI), Z25
	VMOVDQU64 384(SI), Z26
	VMOVDQU64 448(SI), Z27
	VPSHUFB   Z31, Z24, Z24
	VPSHUFB   Z31, Z25, Z25
	VPSHUFB   Z31, Z26, Z26
	VPSHUFB   Z31, Z27, Z27

	SAME_HALVES($0x00, Z5) // low halves' products
	SAME_HALVES($0x11, Z9) // high halves'

	// Middle products.
	VPCLMULQDQ $0x01, Z20, Z0, Z13
	VPCLMULQDQ $0x10, Z20, Z0, Z6
	VPCLMULQDQ $0x01, Z21, Z2, Z7
	VPCLMULQDQ $0x10, Z21, Z2, Z8
	VPTERNLOGD $0x96, Z6, Z7, Z13
	VPCLMULQDQ $0x01, Z22, Z3, Z6
	VPCLMULQDQ $0x10, Z22, Z3, Z7
	VPTERNLOGD $0x96, Z8, Z6, Z13
	VPCLMULQDQ $0x01, Z23, Z4, Z6
	VPCLMULQDQ $0x10, Z23, Z4, Z8
	VPTERNLOGD $0x96, Z7, Z6, Z13
	VPCLMULQDQ $0x01, Z16, Z24, Z6
	VPCLMULQDQ $0x10, Z16, Z24, Z7
	VPTERNLOGD $0x96, Z8, Z6, Z13
	VPCLMULQDQ $0x01, Z17, Z25, Z6
	VPCLMULQDQ $0x10, Z17, Z25, Z8
	VPTERNLOGD $0x96, Z7, Z6, Z13
	VPCLMULQDQ $0x01, Z18, Z26, Z6
	VPCLMULQDQ $0x10, Z18, Z26, Z7
	VPTERNLOGD $0x96, Z8, Z6, Z13
	VPCLMULQDQ $0x01, Z19, Z27, Z6
	VPCLMULQDQ $0x10, Z19, Z27, Z8
	VPTERNLOGD $0x96, Z7, Z6, Z13
	VPXORQ     Z8, Z13, Z13

	SUM_REDUCE
	ADDQ $512, SI
	SUBQ $512, CX
	CMPQ CX, $512
	JAE  wide

single:
	VMOVDQU 496(AX), X10 // H^1
	VMOVDQU bswap<>(SB), X14

one:
	CMPQ    CX, $16
	JB      done
	VMOVDQU (SI), X0
	VPSHUFB X14, X0, X0
	VPXOR   X1, X0, X0
	VPCLMULQDQ $0x00, X10, X0, X5
	VPCLMULQDQ $0x11, X10, X0, X9
	VPCLMULQDQ $0x01, X10, X0, X13
	VPCLMULQDQ $0x10, X10, X0, X6
	VPXOR      X6, X13, X13
	REDUCE(X5, X13, X9, X6)
	VMOVDQU X9, X1
	ADDQ $16, SI
	SUBQ $16, CX
	JMP  one

done:
	VMOVDQU X1, (DI)
	VZEROUPPER
	RET
