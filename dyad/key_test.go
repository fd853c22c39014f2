package dyad

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spaolacci/murmur3"
)

// The vectors are C DYAD's (REFERENCE.md §2).
func TestPathKeyVectors(t *testing.T) {
	for _, c := range []struct {
		upath       string
		depth, bins int
		want        string
	}{
		{"1/data0.txt", 3, 1024, "263.2ce.2e1.1/data0.txt"},
		{"1/data0.txt", 2, 256, "63.ce.1/data0.txt"},
		{"1/data0.txt", 0, 1024, "1/data0.txt"},
	} {
		if got := PathKey(c.upath, c.depth, c.bins); got != c.want {
			t.Errorf("PathKey(%q, %d, %d) = %q, want %q", c.upath, c.depth, c.bins, got, c.want)
		}
	}
}

// refMurmur is a reference MurmurHash3_x64_128 skeleton written apart from
// murmur3DYAD: the tail bytes mixed into k1 and k2 are chosen by tailBytes, so the
// same code computes the textbook hash (checked against spaolacci/murmur3) and C
// DYAD's variant.
func refMurmur(data []byte, seed uint32, tailBytes func(r int) (k1, k2 []int)) (uint64, uint64) {
	const c1, c2 = uint64(0x87c37b91114253d5), uint64(0x4cf5ad432745937f)
	mix := func(k, ca, cb uint64, r int) uint64 { return bits.RotateLeft64(k*ca, r) * cb }
	h1, h2 := uint64(seed), uint64(seed)
	body := len(data) &^ 15
	for off := 0; off < body; off += 16 {
		h1 ^= mix(binary.LittleEndian.Uint64(data[off:]), c1, c2, 31)
		h1 = (bits.RotateLeft64(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= mix(binary.LittleEndian.Uint64(data[off+8:]), c2, c1, 33)
		h2 = (bits.RotateLeft64(h2, 31)+h1)*5 + 0x38495ab5
	}
	r := len(data) - body
	i1, i2 := tailBytes(r)
	var k1, k2 uint64
	for _, i := range i1 {
		k1 |= uint64(data[body+i]) << (8 * i)
	}
	for _, i := range i2 {
		k2 |= uint64(data[body+i]) << (8 * (i - 8))
	}
	if len(i2) > 0 {
		h2 ^= mix(k2, c2, c1, 33)
	}
	if len(i1) > 0 {
		h1 ^= mix(k1, c1, c2, 31)
	}
	fm := func(k uint64) uint64 {
		for _, m := range []uint64{0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53} {
			k = (k ^ k>>33) * m
		}
		return k ^ k>>33
	}
	h1 ^= uint64(len(data))
	h2 ^= uint64(len(data))
	h1 += h2
	h2 += h1
	h1, h2 = fm(h1), fm(h2)
	return h1 + h2, h2 + h1 + h2
}

// textbookTail mixes every tail byte: 0..7 into k1, 8..r-1 into k2.
func textbookTail(r int) (k1, k2 []int) {
	for i := 0; i < r; i++ {
		if i < 8 {
			k1 = append(k1, i)
		} else {
			k2 = append(k2, i)
		}
	}
	return k1, k2
}

// dyadTail is C DYAD's tail, where every case of the switch breaks: only r = 1 (tail[0]
// into k1) and r = 9 (tail[8] alone into k2) mix anything (REFERENCE.md §2).
func dyadTail(r int) (k1, k2 []int) {
	switch r {
	case 1:
		return []int{0}, nil
	case 9:
		return nil, []int{8}
	}
	return nil, nil
}

func TestRefMurmurIsTextbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 300; n++ {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		seed := rng.Uint32()
		w1, w2 := murmur3.Sum128WithSeed(data, seed)
		if g1, g2 := refMurmur(data, seed, textbookTail); g1 != w1 || g2 != w2 {
			t.Fatalf("len %d: reference %x %x, spaolacci %x %x", n, g1, g2, w1, w2)
		}
	}
}

// TestMurmurDYAD compares murmur3DYAD with the reference variant at every length up to
// 300, and with the textbook hash where C DYAD's agrees with it (len % 16 of 0 or 1).
func TestMurmurDYAD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 300; n++ {
		for rep := 0; rep < 4; rep++ {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			seed := rng.Uint32()
			g1, g2 := murmur3DYAD(data, seed)
			if w1, w2 := refMurmur(data, seed, dyadTail); g1 != w1 || g2 != w2 {
				t.Fatalf("len %d seed %d: murmur3DYAD %x %x, reference %x %x", n, seed, g1, g2, w1, w2)
			}
			t1, t2 := murmur3.Sum128WithSeed(data, seed)
			if r := n % 16; (r == 0 || r == 1) != (g1 == t1 && g2 == t2) {
				t.Fatalf("len %d (r %d): agreement with the textbook hash is %v", n, r, g1 == t1 && g2 == t2)
			}
		}
	}
}

// longPath is a deterministic relative path of n bytes.
func longPath(n int) string {
	s := "run/" + strings.Repeat("frame_0123456789/", 1+n/17)
	return s[:n-4] + ".bin"
}

// refKey is PathKey over the reference variant.
func refKey(upath string, depth, bins int) string {
	padded := []byte(upath)
	for len(padded) < 128 {
		padded = append(padded, '@')
	}
	var b strings.Builder
	seed := uint32(57)
	for d := 0; d < depth; d++ {
		seed += keySeeds[d%10]
		h1, h2 := refMurmur(padded, seed, dyadTail)
		bin := (uint32(h1) ^ uint32(h1>>32) ^ uint32(h2) ^ uint32(h2>>32)) % uint32(bins)
		fmt.Fprintf(&b, "%x.", bin)
	}
	return b.String() + upath
}

// TestPathKeyLongPaths: every length 128..300 (every value of len % 16) against the
// reference, and pinned vectors for one length of each remainder.
func TestPathKeyLongPaths(t *testing.T) {
	for n := 128; n <= 300; n++ {
		p := longPath(n)
		for _, shape := range [][2]int{{3, 1024}, {2, 256}, {5, 7}} {
			if got, want := PathKey(p, shape[0], shape[1]), refKey(p, shape[0], shape[1]); got != want {
				t.Fatalf("len %d depth %d bins %d: %q, reference %q", n, shape[0], shape[1], got, want)
			}
		}
	}
	seen := map[int]bool{}
	for _, v := range longKeyVectors {
		p := longPath(v.n)
		seen[v.n%16] = true
		if got := PathKey(p, 3, 1024); got != v.bins+p {
			t.Errorf("len %d (len %% 16 = %d): key %q, want %q", v.n, v.n%16, got, v.bins+p)
		}
	}
	if len(seen) != 16 {
		t.Fatalf("vectors cover %d remainders of 16", len(seen))
	}
}

// longKeyVectors are the key prefixes (depth 3, 1024 bins) of longPath(n), computed with
// refKey and confirmed by libcouplet-dyad's C implementation (capi/dyad tests compare
// it with PathKey at every length).
var longKeyVectors = []struct {
	n    int
	bins string
}{
	{128, "108.2ef.cb."},
	{129, "2a0.231.243."},
	{130, "1cc.38b.2b1."},
	{131, "303.3a.139."},
	{132, "223.62.115."},
	{133, "a5.217.228."},
	{134, "38b.155.267."},
	{135, "370.1dd.33a."},
	{136, "10b.2b6.248."},
	{137, "318.3c5.267."},
	{138, "319.21b.16e."},
	{139, "18c.384.34e."},
	{140, "a8.160.146."},
	{141, "e2.2f0.36."},
	{142, "2c8.3fb.3b1."},
	{143, "d3.2.196."},
	{160, "2c.217.3bf."},
	{177, "2f2.34b.15d."},
	{201, "f9.128.323."},
	{255, "2ca.333.215."},
	{256, "2df.1a3.33."},
	{257, "3d7.d.362."},
	{265, "20c.2f5.2d."},
	{300, "3cb.11a.391."},
}
