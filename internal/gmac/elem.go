package gmac

import "encoding/binary"

// elem is an element of GF(2^128), GHASH's field, as the wide GHASH holds it in a
// 128-bit register: the block's bytes reversed, [0] the low and [1] the high 64 bits.
// GCM puts the coefficient of x^0 in the first byte's top bit, so here the coefficient
// of x^k is bit 127-k: the polynomial bit-reversed. A carry-less multiply of two
// bit-reversed 128-bit values is the bit-reversed 256-bit product shifted right by one;
// keeping the hash key's powers times x^-1 makes up for that shift.
type elem [2]uint64

// load reads a 16-byte block.
func load(b []byte) elem {
	return elem{binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[:8])}
}

// poly is x^6 + x + 1 bit-reversed in 64 bits: with the shift a carry-less multiply
// adds, it multiplies by x^7 + x^2 + x, which with x^0 is what x^128 reduces to. The
// reduction in gmac_amd64.s (and its model in elem_test.go) folds with it.
const poly = 0xc200000000000000

// divX returns e times x^-1.
func (e elem) divX() elem {
	low := e[1] >> 63 // the coefficient of x^0
	r := elem{e[0] << 1, e[1]<<1 | e[0]>>63}
	if low != 0 {
		// (e + g) / x for g = x^128 + x^7 + x^2 + x + 1 adds x^127 + x^6 + x + 1.
		r[1] ^= poly
		r[0] ^= 1
	}
	return r
}
