package dyad

import (
	"encoding/binary"
	"math/bits"
)

// murmur3DYAD is MurmurHash3_x64_128 as C DYAD's own murmur3.c computes it. The body
// (16-byte blocks) and the finalisation are the textbook function's, but each case of
// the tail switch ends with a break instead of falling through: with r = len % 16
// trailing bytes, r = 1 mixes tail[0] into h1 (as the textbook does), r = 9 mixes only
// tail[8] into h2, and every other r adds nothing. For r = 0 and r = 1 the result is
// the textbook hash.
func murmur3DYAD(data []byte, seed uint32) (h1, h2 uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h1, h2 = uint64(seed), uint64(seed)
	n := len(data) / 16
	for i := 0; i < n; i++ {
		k1 := binary.LittleEndian.Uint64(data[16*i:])
		k2 := binary.LittleEndian.Uint64(data[16*i+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[16*n:]
	switch len(tail) {
	case 9:
		k2 := uint64(tail[8]) * c2
		k2 = bits.RotateLeft64(k2, 33)
		h2 ^= k2 * c1
	case 1:
		k1 := uint64(tail[0]) * c1
		k1 = bits.RotateLeft64(k1, 31)
		h1 ^= k1 * c2
	}
	h1 ^= uint64(len(data))
	h2 ^= uint64(len(data))
	h1 += h2
	h2 += h1
	h1, h2 = fmix64(h1), fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
