package agent

import (
	"io"
	"os"
	"sync"
)

// contentHasher checks a download against the content tag the signed record names. The
// DTLs feed it beside the transfer, on a goroutine of their own, so that checking the
// bytes already received overlaps receiving the next ones instead of adding to the
// staging time, and no second pass over the file is needed: the rpc DTL hashes each range
// in the page cache through a mapping of the file (readBack), the ucx DTL hashes each
// window slot after writing it (Write). The record's CRC-32C is not recomputed here: the
// owner's agent checked it against the same bytes it tagged when it published, and the
// signed tag is the stronger check of the two, so a second pass would only cost time.
type contentHasher struct {
	// mac is the record's content tag being computed, nil when the check is off.
	mac *ContentMAC
}

// hashPiece is the smallest range a DTL hands the hash at a time, so that even a file of
// one chunk is checked while it arrives.
const hashPiece = 128 << 10

// readPiece is what hashAt reads from the page cache and hashes at a time: large enough
// for few syscalls, a multiple of contentChunk so that the tag takes it in place, small
// enough to stay in a core's 1 MiB L2 cache between the read and the tag.
const readPiece = 512 << 10

// readBufs recycles hashAt's buffers across downloads.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readPiece); return &b }}

// newContentHasher starts a hasher of mac; with mac nil (Options.SkipContentHash) it
// hashes nothing, and Sum returns nil.
func newContentHasher(mac *ContentMAC) *contentHasher { return &contentHasher{mac: mac} }

// Write hashes p, the next bytes of the file, on the calling goroutine.
func (c *contentHasher) Write(p []byte) {
	if c.mac != nil {
		c.mac.Write(p)
	}
}

// hashAt hashes the n bytes at off in f on the calling goroutine, each piece right after
// reading it, while it is in this core's cache: the read-back of a file that cannot be
// mapped. Bytes missing from the file are an error (io.EOF or io.ErrUnexpectedEOF), never
// a shorter hash.
func (c *contentHasher) hashAt(f *os.File, off, n int64) error {
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	for n > 0 {
		// Each piece ends on a chunk boundary, so the tag takes the next one in place.
		p := (*bp)[:min(n, int64(len(*bp))-off%contentChunk)]
		k, err := f.ReadAt(p, off)
		if k < len(p) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		c.Write(p)
		off += int64(k)
		n -= int64(k)
	}
	return nil
}

// Sum returns the content tag of the bytes hashed; call it once, after the last Write or
// hashAt returned.
func (c *contentHasher) Sum() []byte {
	if c.mac == nil {
		return nil
	}
	return c.mac.Sum()
}
