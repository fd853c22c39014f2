package dyad

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

type chanStep chan int64

func (c chanStep) Update(done int64) { c <- done }
func (c chanStep) End(error)         {}

// TestWatchStagingFindsItsOwnTemporary: the watch reports the size of dest's temporary
// file, matching the names literally (glob characters in the directory and the name),
// and not the temporary file of another name that starts alike.
func TestWatchStagingFindsItsOwnTemporary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run[1]*?")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "f[0].bin")
	// The others sort before dest's (Glob's order) and are larger: reported first if matched.
	for name, size := range map[string]int{
		".couplet-tmp-f[0].bin-12345":       1000, // dest's
		".couplet-tmp-f[0].bin-0.bin-67890": 5000, // of "f[0].bin-0.bin"
		".couplet-tmp-f0.bin-13579":         7000, // of "f0.bin", which f[0].bin matches as a pattern
		".couplet-tmp-f[0].bin-0abc":        9000, // no CreateTemp name
	} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := make(chanStep, 16)
	stop := watchStaging(c, dest)
	defer stop()
	select {
	case got := <-c:
		if got != 1000 {
			t.Fatalf("watch reported %d bytes, want 1000 (dest's temporary file)", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("watch reported nothing")
	}
}
