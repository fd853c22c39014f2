package agent

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// ErrBadSignature is wrapped when a metadata record is not signed with the cluster key:
// it was written by someone who does not hold the token, or altered.
var ErrBadSignature = errors.New("metadata record not signed with the cluster key")

// signingKey derives the metadata signing key from the cluster token, so that the key
// that signs records is never the one peers prove they hold.
func signingKey(token string) []byte {
	h := hmac.New(sha256.New, []byte(token))
	h.Write([]byte("couplet metadata signing key v1"))
	return h.Sum(nil)
}

// metaMAC is the HMAC-SHA256 under key of every field of m but the signature, each
// length-prefixed, so that no two records share an encoding.
func metaMAC(key []byte, m *wire.Meta) []byte {
	h := hmac.New(sha256.New, key)
	var b [8]byte
	num := func(v uint64) { binary.BigEndian.PutUint64(b[:], v); h.Write(b[:]) }
	str := func(s []byte) { num(uint64(len(s))); h.Write(s) }
	// v2: the record's Hash is BLAKE3-256 (v1 named SHA-256); the version is signed, so a
	// record of one kind never verifies as the other.
	// v3: the file's mode is signed too.
	// v4: Hash is the content tag (content.go), salt and MAC.
	h.Write([]byte("couplet-meta-v4"))
	str([]byte(m.Key))
	str([]byte(m.Path))
	str([]byte(m.Owner))
	str([]byte(m.Node))
	num(uint64(m.Size))
	num(uint64(m.Version))
	num(uint64(m.Checksum))
	num(uint64(m.MTimeNs))
	num(uint64(m.Mode))
	str(m.Hash)
	return h.Sum(nil)
}

// sign sets m's signature.
func (a *Agent) sign(m *wire.Meta) { m.Sig = metaMAC(a.signKey, m) }

// verify checks m's signature and that it names a content tag.
func (a *Agent) verify(m *wire.Meta) error {
	if len(m.Sig) == 0 {
		return fmt.Errorf("%w: %q version %d is unsigned", ErrBadSignature, m.Path, m.Version)
	}
	if !hmac.Equal(m.Sig, metaMAC(a.signKey, m)) {
		return fmt.Errorf("%w: %q version %d (owner %s)", ErrBadSignature, m.Path, m.Version, m.Owner)
	}
	if len(m.Hash) != contentHashSize {
		return fmt.Errorf("%w: %q version %d names no content tag", ErrBadSignature, m.Path, m.Version)
	}
	return nil
}

// hashFile returns the content tag under salt, the CRC-32C and the size of f from its
// start, in one pass.
func (a *Agent) hashFile(f *os.File, salt []byte) ([]byte, uint32, int64, error) {
	h, err := newContentMAC(a.contentKey, salt)
	if err != nil {
		return nil, 0, 0, err
	}
	crc := crc32.New(dyad.Castagnoli)
	n, err := io.CopyBuffer(io.MultiWriter(h, crc), io.NewSectionReader(f, 0, 1<<62), make([]byte, 1<<20))
	if err != nil {
		return nil, 0, n, err
	}
	return h.Sum(), crc.Sum32(), n, nil
}

// clientMeta is m as local clients see it: without the hash and signature, which only
// agents use, so the local protocol stays as it was.
func clientMeta(m *wire.Meta) *wire.Meta {
	if m == nil || (m.Hash == nil && m.Sig == nil) {
		return m
	}
	c := *m
	c.Hash, c.Sig = nil, nil
	return &c
}

// signedRecord returns the current signed record of want's key, at want's version or
// newer, from the node cache or the KVS. A record without a valid signature is refused
// before anything is fetched or written.
func (a *Agent) signedRecord(ctx context.Context, ns string, want *wire.Meta) (*wire.Meta, error) {
	rec, ok := a.cache.get(fullKey(ns, want.Key))
	if !ok || rec.Version < want.Version || a.verify(rec) != nil {
		var err error
		if rec, err = a.kvsRecord(ctx, ns, want); err != nil {
			return nil, err
		}
	}
	if rec.Version < want.Version {
		return nil, fmt.Errorf("%q: the KVS holds version %d, not %d", want.Path, rec.Version, want.Version)
	}
	if err := a.verify(rec); err != nil {
		a.ctr.badSignatures.Add(1)
		a.errs.Printf("refused to stage: %v", err)
		return nil, err
	}
	return rec, nil
}

// kvsRecord reads the record of want's key in namespace ns from the KVS, unverified.
func (a *Agent) kvsRecord(ctx context.Context, ns string, want *wire.Meta) (*wire.Meta, error) {
	val, found, _, err := nsKV(a.kv, ns).Get(ctx, want.Key)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%q: no record in the KVS", want.Path)
	}
	return wire.DecodeMeta(val)
}

// SignRecord signs m as an agent holding token would.
func SignRecord(token string, m *wire.Meta) { m.Sig = metaMAC(signingKey(token), m) }
