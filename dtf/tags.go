package dtf

import (
	"fmt"
	"math/bits"

	"github.com/couplet-hpc/couplet/dtf/protocol"
)

// Tags. Control messages share tagCtl. A data tag names a transfer by the
// writer's file slot and a transfer id that the matchers hand out, so boxes
// of concurrent files and matchers never meet the wrong receive. Every tag
// stays at or below the transport's bound (MPI_TAG_UB), which MPIs set as
// low as 32767, the least the standard promises.
const (
	tagCtl      = 1
	dataTagBase = 2 // tags below are control's

	maxFileSlots = 256     // files one writer process may have open at once
	maxTagIDs    = 1 << 22 // transfer ids per file slot, when the bound is wide
	minTagIDs    = 256     // fewer ids per file than this is no useful layout
)

// tagLayout splits the data tags under a bound into file slots of transfer
// ids: data tag = dataTagBase + slot*IDs + id.
type tagLayout struct {
	UB    int // the largest tag the transport carries
	Files int // file slots
	IDs   int // transfer ids per file slot
}

// newTagLayout fits the data tags under ub. Narrow bounds keep fewer file
// slots and fewer ids; both wrap (see pickFileSlot and transferID). A bound
// that leaves fewer than minTagIDs ids is an error.
func newTagLayout(ub int) (tagLayout, error) {
	if ub < dataTagBase {
		return tagLayout{}, fmt.Errorf("dtf: tag bound %d leaves no data tags", ub)
	}
	// Half of the bits above 11 go to file slots, at least 1, at most 8:
	// 2^31-1 -> 256 slots, 2^23-1 -> 64, 524287 -> 16, 32767 -> 4.
	b := bits.Len(uint(ub+1)) - 1
	fb := min(max((b-11)/2, 1), 8)
	files := 1 << fb
	ids := min((ub+1-dataTagBase)/files, maxTagIDs)
	if ids < minTagIDs {
		return tagLayout{}, fmt.Errorf("dtf: tag bound %d is too small: %d file slots leave %d transfer ids each, fewer than %d (the MPI standard promises a bound of at least 32767)", ub, files, ids, minTagIDs)
	}
	return tagLayout{UB: ub, Files: files, IDs: ids}, nil
}

// data returns the tag of transfer id of the file in slot.
func (l tagLayout) data(slot int, id int64) int {
	return dataTagBase + slot%l.Files*l.IDs + int(id%int64(l.IDs))
}

// pickFileSlot returns the first slot at or after next, counting round the
// slots, that no file open for writing holds. Reusing the slot longest free
// keeps a closed file's last messages apart from a new file's. All slots
// busy is an error: the bound allows no more files open at once.
func (l tagLayout) pickFileSlot(next int, busy map[int]bool) (int, error) {
	for i := range l.Files {
		s := (next + i) % l.Files
		if !busy[s] {
			return s, nil
		}
	}
	return 0, fmt.Errorf("dtf: %d coupled files are open for writing in this process, the most the tag bound %d allows", l.Files, l.UB)
}

// transferID hands out matcher self's (of nmatch) next transfer id under
// this layout (see protocol.TransferID).
func (l tagLayout) transferID(counter *int64, nmatch, self int, used map[int64]bool) (int64, error) {
	return protocol.TransferID(l.IDs, l.UB, counter, nmatch, self, used)
}
