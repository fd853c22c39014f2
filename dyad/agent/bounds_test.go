package agent

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReserve reserves a download's space in a file system of 1 MiB: what fits is
// allocated ahead with the size left at 0, what does not fails with ENOSPC before any
// byte is written.
func TestReserve(t *testing.T) {
	small := filepath.Join(t.TempDir(), "small")
	os.MkdirAll(small, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", small).Run() })
	for _, c := range []struct {
		size   int64
		noRoom bool
	}{{0, false}, {100 << 10, false}, {4 << 20, true}} {
		f, err := os.CreateTemp(small, "r")
		if err != nil {
			t.Fatal(err)
		}
		err = reserve(f, c.size)
		st, _ := f.Stat()
		f.Close()
		os.Remove(f.Name())
		switch {
		case c.noRoom && (!errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no room for 4194304 bytes in "+small)):
			t.Errorf("reserve(%d) in 1 MiB: err = %v, want no room ... ENOSPC", c.size, err)
		case !c.noRoom && err != nil:
			t.Errorf("reserve(%d) in 1 MiB: %v", c.size, err)
		case st.Size() != 0:
			t.Errorf("reserve(%d) set the size to %d, want it left at 0", c.size, st.Size())
		case !c.noRoom && st.Sys().(*syscall.Stat_t).Blocks*512 < c.size:
			t.Errorf("reserve(%d) allocated %d bytes", c.size, st.Sys().(*syscall.Stat_t).Blocks*512)
		}
	}
}
