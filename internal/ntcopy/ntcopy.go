package ntcopy

import "unsafe"

// MinStream is the shortest range Copy streams; shorter ones, and the
// unaligned head and the tail of longer ones, go through copy.
const MinStream = 256

// Large is the size of a whole copy (every row of a block) from which
// streaming it pays: the destination of a smaller one may still be in the
// caches when it is used next, and streaming would have pushed it out.
const Large = 1 << 20

// Copy copies min(len(dst), len(src)) bytes from src to dst, as copy does,
// streaming the destination past the caches where the platform can (see
// the package documentation). dst and src must not overlap. The stores
// are ordered for other threads only after Fence.
func Copy(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n < MinStream || !streams {
		return copy(dst[:n], src[:n])
	}
	head := int(-uintptr(unsafe.Pointer(&dst[0])) & 15) // to a 16-byte boundary
	copy(dst[:head], src[:head])
	body := (n - head) &^ 63
	stream(unsafe.Pointer(&dst[head]), unsafe.Pointer(&src[head]), uintptr(body))
	copy(dst[head+body:n], src[head+body:n])
	return n
}

// Fence orders every streaming store before it ahead of every store
// after it: call it once after a batch of Copy calls, before another
// thread or process may read what they wrote.
func Fence() { fence() }
