package dyad

import (
	"strconv"
	"strings"
)

// keySeeds are C DYAD's per-level seed increments (dyad_core.c gen_path_key).
var keySeeds = [10]uint32{104677, 104681, 104683, 104693, 104701, 104707, 104711, 104717, 104723, 104729}

// keyPad is the length C DYAD pads the path to, with '@', before hashing.
const keyPad = 128

// PathKey returns the metadata key of upath (a path relative to the managed directory),
// bit-exact with C DYAD's gen_path_key at every length: for each of depth levels, C
// DYAD's MurmurHash3_x64_128 (murmur3DYAD, whose tail differs from the textbook's for
// paths of 128 bytes or more) of the '@'-padded path under a per-level seed, its four
// 32-bit words XORed, modulo bins, in lowercase hex followed by '.', then upath itself.
func PathKey(upath string, depth, bins int) string {
	padded := []byte(upath)
	for len(padded) < keyPad {
		padded = append(padded, '@')
	}
	var b strings.Builder
	seed := uint32(57)
	for d := 0; d < depth; d++ {
		seed += keySeeds[d%len(keySeeds)]
		h1, h2 := murmur3DYAD(padded, seed)
		bin := uint32(h1) ^ uint32(h1>>32) ^ uint32(h2) ^ uint32(h2>>32)
		if bins > 0 {
			bin %= uint32(bins)
		}
		b.WriteString(strconv.FormatUint(uint64(bin), 16))
		b.WriteByte('.')
	}
	b.WriteString(upath)
	return b.String()
}
