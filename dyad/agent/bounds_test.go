package agent

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/couplet-hpc/couplet/internal/mounttest"
)

// TestReserve reserves a download's space in a tmpfs of 1 MiB. As it is, reserve leaves
// a file system in memory alone. Made to allocate there, it allocates what fits ahead with
// the size left at 0, and fails what does not with ENOSPC before any byte is written.
func TestReserve(t *testing.T) {
	small := mounttest.Tmpfs(t, "1m")
	ahead := reserveAhead
	defer func() { reserveAhead = ahead }()
	for _, c := range []struct {
		size      int64
		forced    bool  // reserveAhead made true
		allocated int64 // at least this many bytes allocated
		noRoom    bool
	}{
		{size: 100 << 10},
		{size: 4 << 20},
		{size: 0, forced: true},
		{size: 100 << 10, forced: true, allocated: 100 << 10},
		{size: 4 << 20, forced: true, noRoom: true},
	} {
		reserveAhead = ahead
		if c.forced {
			reserveAhead = func(*os.File) bool { return true }
		}
		f, err := os.CreateTemp(small, "r")
		if err != nil {
			t.Fatal(err)
		}
		err = reserve(f, c.size)
		st, _ := f.Stat()
		f.Close()
		os.Remove(f.Name())
		used := st.Sys().(*syscall.Stat_t).Blocks * 512
		switch {
		case c.noRoom && (!errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no room for 4194304 bytes in "+small)):
			t.Errorf("reserve(%d), forced %v: err = %v, want no room ... ENOSPC", c.size, c.forced, err)
		case !c.noRoom && err != nil:
			t.Errorf("reserve(%d), forced %v: %v", c.size, c.forced, err)
		case st.Size() != 0:
			t.Errorf("reserve(%d), forced %v: the size is %d, want it left at 0", c.size, c.forced, st.Size())
		case !c.noRoom && (used < c.allocated || c.allocated == 0 && used != 0):
			t.Errorf("reserve(%d), forced %v: %d bytes allocated, want %d", c.size, c.forced, used, c.allocated)
		}
	}
}
