package agent

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// holeBlock is the granularity at which writeSparse leaves zeros as holes.
const holeBlock = 64 << 10

var zeroBlock [holeBlock]byte

// writeSparse writes p at off, leaving whole blocks of zeros unwritten (holes, read back as
// zeros), as cp does: a sparse file stays sparse, and staging one costs no disk writes.
// It adds the zero runs it left to h, whose punch, once the file has its size, gives back
// the space that reserve allocated under them.
func writeSparse(f *os.File, p []byte, off int64, h *holes) error {
	zero := func(b []byte) bool { return bytes.Equal(b, zeroBlock[:len(b)]) }
	for len(p) > 0 {
		i := 0
		for i < len(p) && zero(p[i:i+min(holeBlock, len(p)-i)]) {
			i += min(holeBlock, len(p)-i)
		}
		if i > 0 {
			h.add(off, int64(i))
		}
		j := i
		for j < len(p) && !zero(p[j:j+min(holeBlock, len(p)-j)]) {
			j += min(holeBlock, len(p)-j)
		}
		if j > i {
			if _, err := f.WriteAt(p[i:j], off+int64(i)); err != nil {
				return err
			}
		}
		p, off = p[j:], off+int64(j)
	}
	return nil
}

// holes are the zero runs that writeSparse left unwritten, in file order, adjacent ones
// merged.
type holes []hole

// hole is the n bytes at off.
type hole struct{ off, n int64 }

// add appends the n bytes at off, which follow the holes so far.
func (h *holes) add(off, n int64) {
	if k := len(*h); k > 0 && (*h)[k-1].off+(*h)[k-1].n == off {
		(*h)[k-1].n += n
		return
	}
	*h = append(*h, hole{off, n})
}

// punch deallocates the holes in f, so that the space reserve allocated under them is
// given back and they stay holes on disk. It must come after the file has its final size:
// ext4 punches nothing beyond the end of the file. Where punching fails, the holes read
// back as zeros all the same.
func (h holes) punch(f *os.File) {
	for _, x := range h {
		unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, x.off, x.n)
	}
}
