package ucxtransport

import "fmt"

// The 64-bit UCX tag: bit 63 tells blocks from control messages, bit 62
// (with bit 63) marks the answer to a single-copy block's descriptor, bit
// 61 (with bit 63) the messages of a block whose single-copy read the
// kernel refused, which then moves through UCX; bits 31..60 hold the
// sender's rank and bits 0..30 the caller's tag.
const (
	tagBits    = 31
	srcBits    = 30
	maxTag     = 1 << tagBits
	blockBit   = uint64(1) << 63
	answerBit  = uint64(1) << 62
	refusedBit = uint64(1) << 61
	srcMask    = uint64(1)<<srcBits - 1
	ctrlProbe  = blockBit | (maxTag - 1) // kind and tag, any source
	exactMatch = ^uint64(0)
)

// maxRanks is the largest number of ranks the tag's source field holds.
const maxRanks = 1 << srcBits

// answerTag is the tag of src's answer to a single-copy descriptor sent
// with tag.
func answerTag(src, tag int) uint64 { return ucxTag(true, src, tag) | answerBit }

// refusedTag is the tag of the messages of a block from src sent with tag
// whose single-copy read its receiver was refused.
func refusedTag(src, tag int) uint64 { return ucxTag(true, src, tag) | refusedBit }

// ucxTag builds the tag of a message from src.
func ucxTag(block bool, src, tag int) uint64 {
	t := uint64(src)<<tagBits | uint64(tag)
	if block {
		t |= blockBit
	}
	return t
}

// tagSource extracts the sender's rank from a UCX tag.
func tagSource(t uint64) int { return int(t >> tagBits & srcMask) }

// checkTag rejects tags the layout cannot carry.
func checkTag(tag int) error {
	if tag < 0 || tag >= maxTag {
		return fmt.Errorf("ucxtransport: tag %d outside [0, 2^31)", tag)
	}
	return nil
}
