package agent

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteSparse writes chunks with zero runs of every alignment at offsets, into a new
// file and into one whose space reserve allocated first (as a download's): the file reads
// back identical, and aligned zero blocks are left as holes.
func TestWriteSparse(t *testing.T) {
	for _, reserved := range []bool{false, true} {
		t.Run(fmt.Sprintf("reserved=%v", reserved), func(t *testing.T) { testWriteSparse(t, reserved) })
	}
}

func testWriteSparse(t *testing.T, reserved bool) {
	r := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 40*holeBlock+123)
	for _, run := range [][2]int{{0, 100}, {holeBlock - 1, 3}, {5*holeBlock + 7, 2 * holeBlock}, {len(want) - 50, 50}} {
		for i := run[0]; i < run[0]+run[1]; i++ {
			want[i] = byte(r.Uint32() | 1)
		}
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if reserved {
		if err := reserve(f, int64(len(want))); err != nil {
			t.Fatal(err)
		}
		if st, _ := f.Stat(); st.Sys().(*syscall.Stat_t).Blocks*512 < int64(len(want)) {
			t.Skipf("the file system of %s does not allocate ahead", f.Name())
		}
	}
	// Unequal chunks, as a producer with a tail would send them; then the size and the
	// holes, as a download's commit sets them.
	var h holes
	for off, step := 0, 3*holeBlock+11; off < len(want); off += step {
		if err := writeSparse(f, want[off:min(off+step, len(want))], int64(off), &h); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(int64(len(want))); err != nil {
		t.Fatal(err)
	}
	h.punch(f)
	got, err := os.ReadFile(f.Name())
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes (%v), differ from %d written", len(got), err, len(want))
	}
	if st, _ := f.Stat(); st.Sys().(*syscall.Stat_t).Blocks*512 >= int64(len(want))/2 {
		t.Errorf("%d bytes on disk for %d bytes mostly zero: holes not left", st.Sys().(*syscall.Stat_t).Blocks*512, len(want))
	}
	// An all-zero chunk at the end writes nothing; the caller's Truncate sets the size.
	if err := writeSparse(f, make([]byte, 2*holeBlock), int64(len(want)), &h); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stat(); st.Size() != int64(len(want)) {
		t.Fatalf("zero chunk changed the size to %d", st.Size())
	}
}
