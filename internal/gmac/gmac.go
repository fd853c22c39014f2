// Package gmac computes GMAC tags: AES-GCM's tag of a message taken as additional data
// with nothing to encrypt, byte for byte what crypto/cipher's GCM Seal(nil, nonce, nil,
// msg) returns.
//
// crypto/cipher's GHASH multiplies one 128-bit block at a time (about 7.9 GB/s on a
// 2.1 GHz EPYC core). Where the processor has 512-bit carry-less multiplies
// (VPCLMULQDQ with AVX-512), Tag hashes 32 blocks per step on them, each with its own
// power of the hash key, and reduces once per step; elsewhere it calls crypto/cipher.
package gmac

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
)

// NonceSize and TagSize are GCM's standard nonce and tag lengths, the only ones Tag takes.
const (
	NonceSize = 12
	TagSize   = 16
)

// powers is how many powers of the hash key the wide GHASH multiplies by: the blocks
// of one step.
const powers = 32

// MAC makes GMAC tags under one AES key. Its methods may be called from several
// goroutines at once.
type MAC struct {
	blk cipher.Block
	gcm cipher.AEAD // where the wide GHASH is not available
	// pow holds H^32 down to H^1, each times x^-1, in the representation the wide
	// GHASH works in (see elem); pow[i] = H^(32-i).
	pow [powers]elem
}

// New returns a MAC under key (16, 24 or 32 bytes).
func New(key []byte) (*MAC, error) {
	blk, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	m := &MAC{blk: blk}
	if !wide {
		if m.gcm, err = cipher.NewGCM(blk); err != nil {
			return nil, err
		}
		return m, nil
	}
	var h [16]byte
	blk.Encrypt(h[:], h[:])
	m.pow[powers-1] = load(h[:]).divX()
	// Hashing a zero block into y multiplies y by H: H^(k+1) from H^k.
	var zero [16]byte
	for i := powers - 2; i >= 0; i-- {
		m.pow[i] = m.pow[i+1]
		ghashWide(&m.pow[i], &m.pow, &zero[0], len(zero))
	}
	return m, nil
}

// Tag sets out to the GMAC of msg under nonce.
func (m *MAC) Tag(nonce *[NonceSize]byte, msg []byte, out *[TagSize]byte) {
	if m.gcm != nil {
		m.gcm.Seal(out[:0], nonce[:], nil, msg)
		return
	}
	var y elem
	whole := len(msg) &^ 15
	if whole > 0 {
		ghashWide(&y, &m.pow, &msg[0], whole)
	}
	// The last partial block, zero-padded, then the length block (no ciphertext).
	var last [32]byte
	blocks := last[:]
	if copy(last[:16], msg[whole:]) == 0 {
		blocks = last[16:]
	}
	binary.BigEndian.PutUint64(last[16:], uint64(len(msg))*8)
	ghashWide(&y, &m.pow, &blocks[0], len(blocks))
	var j0 [16]byte
	copy(j0[:], nonce[:])
	j0[15] = 1
	m.blk.Encrypt(j0[:], j0[:])
	binary.BigEndian.PutUint64(out[:8], y[1])
	binary.BigEndian.PutUint64(out[8:], y[0])
	for i := range out {
		out[i] ^= j0[i]
	}
}
