package dyad

import "testing"

// The vectors are C DYAD's (REFERENCE.md §2).
func TestPathKeyVectors(t *testing.T) {
	for _, c := range []struct {
		upath       string
		depth, bins int
		want        string
	}{
		{"1/data0.txt", 3, 1024, "263.2ce.2e1.1/data0.txt"},
		{"1/data0.txt", 2, 256, "63.ce.1/data0.txt"},
		{"1/data0.txt", 0, 1024, "1/data0.txt"},
	} {
		if got := PathKey(c.upath, c.depth, c.bins); got != c.want {
			t.Errorf("PathKey(%q, %d, %d) = %q, want %q", c.upath, c.depth, c.bins, got, c.want)
		}
	}
}
