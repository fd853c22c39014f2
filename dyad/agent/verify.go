package agent

// contentHasher checks a download against the content tag the signed record names. The
// DTLs feed it beside the transfer, on a goroutine of their own, so that checking the
// bytes already received overlaps receiving the next ones instead of adding to the
// staging time, and no second pass over the file is needed: the rpc DTL tags each chunk as
// it reads it back from the page cache (readBack), the ucx DTL hashes each
// window slot after writing it (Write). The record's CRC-32C is not recomputed here: the
// owner's agent checked it against the same bytes it tagged when it published, and the
// signed tag is the stronger check of the two, so a second pass would only cost time.
type contentHasher struct {
	// mac is the record's content tag being computed, nil when the check is off.
	mac *ContentMAC
	// chunked says that a readBack tagged the chunks: sum is the tag it made from
	// theirs, nil when it failed.
	chunked bool
	sum     []byte
}

// hashPiece is the smallest range a DTL hands the hash at a time, so that even a file of
// one chunk is checked while it arrives.
const hashPiece = 128 << 10

// newContentHasher starts a hasher of mac; with mac nil (the hash off: SetSkipContentHash) it
// hashes nothing, and Sum returns nil.
func newContentHasher(mac *ContentMAC) *contentHasher { return &contentHasher{mac: mac} }

// Write hashes p, the next bytes of the file, on the calling goroutine.
func (c *contentHasher) Write(p []byte) {
	if c.mac != nil {
		c.mac.Write(p)
	}
}

// Sum returns the content tag of the bytes hashed; call it once, after the last Write or
// the readBack's close.
func (c *contentHasher) Sum() []byte {
	if c.mac == nil || c.chunked {
		return c.sum
	}
	return c.mac.Sum()
}
