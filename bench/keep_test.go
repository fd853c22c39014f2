package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplaceKept appends a marked section, replaces it in place, and
// keptSection finds it for WriteOutputs to carry over.
func TestReplaceKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PERFORMANCE.md")
	if err := os.WriteFile(path, []byte("# page\n\ntext\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	one := KeptBegin + "\n## A\n1\n" + KeptEnd
	two := KeptBegin + "\n## A\n2\n" + KeptEnd
	for _, c := range []struct{ section, want string }{
		{one, "# page\n\ntext\n\n" + one + "\n"},
		{two, "# page\n\ntext\n\n" + two + "\n"},
	} {
		if err := ReplaceKept(path, c.section); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if string(b) != c.want {
			t.Fatalf("page:\n%q\nwant:\n%q", b, c.want)
		}
		if got := keptSection(path); got != c.section {
			t.Fatalf("keptSection %q, want %q", got, c.section)
		}
	}
}
