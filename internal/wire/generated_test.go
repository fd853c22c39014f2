package wire

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCodecsGenerated regenerates the codecs of every message type that goes
// through Encode and Decode: the committed files must be what msgp writes
// from the types as they are now.
func TestCodecsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, src := range []string{"matcher/box.go", "matcher/request.go", "dtf/protocol/message.go", "dyad/wire/wire.go"} {
		out := filepath.Join(t.TempDir(), "gen.go")
		cmd := exec.Command("go", "tool", "msgp", "-io=false", "-tests=false", "-file", src, "-o", out)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("msgp %s: %v\n%s", src, err, b)
		}
		gen := src[:len(src)-len(".go")] + "_gen.go"
		want, err1 := os.ReadFile(out)
		got, err2 := os.ReadFile(filepath.Join(root, gen))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./%s", gen, filepath.Dir(src))
		}
	}
}
