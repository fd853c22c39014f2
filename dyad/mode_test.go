package dyad_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestStagedCopyKeepsMode produces files of several modes and checks that each staged
// copy has exactly its source's mode (the temporary file it is fetched into is 0600),
// and that the record carries it.
func TestStagedCopyKeepsMode(t *testing.T) {
	prod, cons := pair(t)
	for i, mode := range []os.FileMode{0o644, 0o600, 0o755, 0o640, 0o444} {
		rel := fmt.Sprintf("modes/f%d.bin", i)
		src := filepath.Join(prod.dir, rel)
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src, []byte(rel), 0o600); err != nil {
			t.Fatal(err)
		}
		// Chmod, not WriteFile's mode, so that the umask does not change it.
		if err := os.Chmod(src, mode); err != nil {
			t.Fatal(err)
		}
		m, err := prod.client.Produce(src)
		if err != nil {
			t.Fatal(err)
		}
		if os.FileMode(m.Mode) != mode {
			t.Errorf("%s: published mode %o, want %o", rel, m.Mode, mode)
		}
		consumeCheck(t, cons, rel, []byte(rel))
		st, err := os.Stat(filepath.Join(cons.dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s: staged copy has mode %o, want %o", rel, st.Mode().Perm(), mode)
		}
	}
}
