package agent

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// testMAC is a content tag under a fixed token and salt, for tests of the hashers.
func testMAC() *ContentMAC {
	m, err := NewContentMAC("test-token", bytes.Repeat([]byte{7}, saltSize))
	if err != nil {
		panic(err)
	}
	return m
}

// tagOf is testMAC's tag of b, written at once.
func tagOf(b []byte) []byte {
	m := testMAC()
	m.Write(b)
	return m.Sum()
}

// TestContentMACKnownAnswer checks the construction against one computed apart from
// Go's: OpenSSL 3's GMAC for each chunk (openssl mac -cipher AES-256-GCM ... GMAC) and
// Python's hmac for the keys and the fold, over 150000 bytes (two whole chunks and a
// short one).
func TestContentMACKnownAnswer(t *testing.T) {
	salt := make([]byte, saltSize)
	for i := range salt {
		salt[i] = byte(i)
	}
	data := make([]byte, 150000)
	for i := range data {
		data[i] = byte(i*7 + 3)
	}
	m, err := NewContentMAC("kat-token", salt)
	if err != nil {
		t.Fatal(err)
	}
	m.Write(data)
	const want = "000102030405060708090a0b0c0d0e0faa17ca5fa34c207e2b11e0b046b9c0f9"
	if got := hex.EncodeToString(m.Sum()); got != want {
		t.Fatalf("tag %s, want %s", got, want)
	}
}

// TestContentMACPieces: the tag depends on the bytes only, not on how they were
// written: every size around the chunk boundaries, in every piece size.
func TestContentMACPieces(t *testing.T) {
	for _, size := range []int{0, 1, contentChunk - 1, contentChunk, contentChunk + 1, 3*contentChunk + 5} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*13 + i>>8)
		}
		want := tagOf(data)
		if len(want) != contentHashSize {
			t.Fatalf("size %d: tag of %d bytes, want %d", size, len(want), contentHashSize)
		}
		for _, piece := range []int{1, 1000, contentChunk - 3, contentChunk, 100 << 10} {
			m := testMAC()
			for off := 0; off < size; off += piece {
				m.Write(data[off:min(off+piece, size)])
			}
			if got := m.Sum(); !bytes.Equal(got, want) {
				t.Errorf("size %d in pieces of %d: tag %x, want %x", size, piece, got, want)
			}
		}
	}
}

// TestContentMACDiffers: every change to the bytes, their length, their order, the salt
// or the token gives another tag.
func TestContentMACDiffers(t *testing.T) {
	data := make([]byte, 3*contentChunk+100)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	base := tagOf(data)
	flip := func(at int) []byte { b := bytes.Clone(data); b[at] ^= 0x80; return b }
	swapped := bytes.Clone(data)
	copy(swapped[2*contentChunk:], data[:contentChunk])
	copy(swapped[:contentChunk], data[2*contentChunk:3*contentChunk])
	salt := bytes.Repeat([]byte{8}, saltSize)
	other, _ := NewContentMAC("test-token", salt)
	other.Write(data)
	token, _ := NewContentMAC("other-token", bytes.Repeat([]byte{7}, saltSize))
	token.Write(data)
	for _, tc := range []struct {
		name string
		tag  []byte
	}{
		{"first byte flipped", tagOf(flip(0))},
		{"byte in the second chunk flipped", tagOf(flip(contentChunk + 5))},
		{"last byte flipped", tagOf(flip(len(data) - 1))},
		{"one byte shorter", tagOf(data[:len(data)-1])},
		{"one zero byte longer", tagOf(append(bytes.Clone(data), 0))},
		{"first and third chunk swapped", tagOf(swapped)},
		{"the short chunk alone", tagOf(data[3*contentChunk:])},
		{"another salt", other.Sum()[saltSize:]},
		{"another token", token.Sum()},
	} {
		if bytes.Equal(tc.tag, base) || bytes.Equal(tc.tag[len(tc.tag)-tagSize:], base[saltSize:]) {
			t.Errorf("%s: same tag %x", tc.name, tc.tag)
		}
	}
	if _, err := NewContentMAC("t", make([]byte, saltSize-1)); err == nil {
		t.Error("a short salt was taken")
	}
}
