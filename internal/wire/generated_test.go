package wire

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// msgpDirective starts the go:generate line of every file whose types have a
// generated codec.
const msgpDirective = "//go:generate go tool msgp "

// TestCodecsGenerated finds every file with a msgp go:generate directive and
// runs that directive again: the committed _gen.go beside it must be what
// msgp writes from the types as they are now.
func TestCodecsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir // .git and the like
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(b)) {
			if args, ok := strings.CutPrefix(strings.TrimSpace(line), msgpDirective); ok {
				found++
				checkGenerated(t, root, path, strings.Fields(args))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no msgp go:generate directive found")
	}
}

// checkGenerated runs msgp with the directive's args on src and compares its output
// with the committed file.
func checkGenerated(t *testing.T, root, src string, args []string) {
	rel, err := filepath.Rel(root, src)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "gen.go")
	cmd := exec.Command("go", append(append([]string{"tool", "msgp"}, args...), "-file", rel, "-o", out)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("msgp %s: %v\n%s", rel, err, b)
	}
	gen := strings.TrimSuffix(src, ".go") + "_gen.go"
	want, err1 := os.ReadFile(out)
	got, err2 := os.ReadFile(gen)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./%s", gen, filepath.Dir(rel))
	}
}
