package gmac

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"
)

// TestTagMatchesGCM checks Tag against crypto/cipher's GCM for every length around the
// step and block boundaries and for random ones, under random keys and nonces.
func TestTagMatchesGCM(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 15, 16, 17, 31, 32, 255, 256, 257, 271, 272, 511, 512, 513, 767, 768, 784, 1023, 1024, 1045, 4096, 65536, 65536 + 5}
	for range 200 {
		lengths = append(lengths, r.IntN(70000))
	}
	for _, keyLen := range []int{16, 24, 32} {
		for _, n := range lengths {
			key := make([]byte, keyLen)
			fill(r, key)
			var nonce [NonceSize]byte
			fill(r, nonce[:])
			msg := make([]byte, n)
			fill(r, msg)
			m, err := New(key)
			if err != nil {
				t.Fatal(err)
			}
			var got [TagSize]byte
			m.Tag(&nonce, msg, &got)
			if want := stdTag(t, key, nonce[:], msg); !bytes.Equal(got[:], want) {
				t.Fatalf("key %d bytes, message %d bytes: tag %x, crypto/cipher gives %x", keyLen, n, got, want)
			}
		}
	}
}

// TestMulMatchesGHASH checks the model of the wide GHASH's arithmetic (elem_test.go) on
// its own, whatever the processor: one block hashed with mul against crypto/cipher's GCM.
func TestMulMatchesGHASH(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		key := make([]byte, 16)
		fill(r, key)
		var nonce [NonceSize]byte
		fill(r, nonce[:])
		msg := make([]byte, 16)
		fill(r, msg)
		blk, _ := aes.NewCipher(key)
		var h [16]byte
		blk.Encrypt(h[:], h[:])
		k := load(h[:]).divX()
		var lenBlock [16]byte
		lenBlock[7] = 128 // 16 bytes of additional data, in bits
		y := load(msg).mul(k)
		y = elem{y[0] ^ load(lenBlock[:])[0], y[1] ^ load(lenBlock[:])[1]}.mul(k)
		var j0 [16]byte
		copy(j0[:], nonce[:])
		j0[15] = 1
		blk.Encrypt(j0[:], j0[:])
		got := make([]byte, 16)
		for i := range 8 {
			got[i] = byte(y[1]>>(56-8*i)) ^ j0[i]
			got[8+i] = byte(y[0]>>(56-8*i)) ^ j0[8+i]
		}
		if want := stdTag(t, key, nonce[:], msg); !bytes.Equal(got, want) {
			t.Fatalf("tag %x, crypto/cipher gives %x", got, want)
		}
	}
}

func stdTag(t *testing.T, key, nonce, msg []byte) []byte {
	t.Helper()
	blk, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cipher.NewGCM(blk)
	if err != nil {
		t.Fatal(err)
	}
	return g.Seal(nil, nonce, nil, msg)
}

func fill(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

func BenchmarkTag(b *testing.B) {
	m, err := New(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	msg := make([]byte, 64<<10)
	var nonce [NonceSize]byte
	var out [TagSize]byte
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		m.Tag(&nonce, msg, &out)
	}
}
