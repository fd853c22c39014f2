package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

// runCLI runs the couplet command line in-process and returns its standard output.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	root.SetArgs(args)
	err := root.Execute()
	os.Stdout = old
	w.Close()
	out, _ := io.ReadAll(r)
	return string(out), err
}

func TestDyadCLI(t *testing.T) {
	tmp := t.TempDir()
	sockDir, _ := os.MkdirTemp("", "cli")
	defer os.RemoveAll(sockDir)
	a, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "A"), Socket: filepath.Join(sockDir, "a")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "B"), Socket: filepath.Join(sockDir, "b"), KVS: a.KVSEndpoint(), TokenFile: a.TokenFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data := bytes.Repeat([]byte("frame"), 100000)
	os.MkdirAll(filepath.Join(tmp, "A", "d"), 0o755)
	os.WriteFile(filepath.Join(tmp, "A", "d", "f.bin"), data, 0o644)
	t.Setenv("DYAD_KVS_NAMESPACE", "cli")
	t.Setenv("DYAD_PATH_RELATIVE", "1")
	t.Setenv("DYAD_PATH_PRODUCER", filepath.Join(tmp, "A"))
	t.Setenv("DYAD_PATH_CONSUMER", filepath.Join(tmp, "B"))
	t.Setenv("COUPLET_AGENT_SOCKET", a.Socket())
	out, err := runCLI(t, "dyad", "produce", "d/f.bin")
	if err != nil || !strings.Contains(out, "version 1") {
		t.Fatalf("produce: %q %v", out, err)
	}
	t.Setenv("COUPLET_AGENT_SOCKET", b.Socket())
	if out, err = runCLI(t, "dyad", "consume", "d/f.bin"); err != nil {
		t.Fatalf("consume: %q %v", out, err)
	}
	got, _ := os.ReadFile(filepath.Join(tmp, "B", "d", "f.bin"))
	if !bytes.Equal(got, data) {
		t.Fatal("consumed file differs")
	}
	if out, err = runCLI(t, "dyad", "ls"); err != nil || !strings.Contains(out, "d/f.bin") {
		t.Fatalf("ls: %q %v", out, err)
	}
	// ls matches path prefixes (keys are hashes): exactly the header and the matching rows.
	for _, c := range []struct {
		prefix string
		rows   []string
	}{
		{"d/", []string{"d/f.bin"}},
		{"./d/f", []string{"d/f.bin"}},
		{"d/f.bin", []string{"d/f.bin"}},
		{"e/", nil},
		{"d/g", nil},
	} {
		out, err := runCLI(t, "dyad", "ls", c.prefix)
		if err != nil {
			t.Fatalf("ls %s: %v", c.prefix, err)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		var paths []string
		for _, l := range lines[1:] {
			paths = append(paths, strings.Fields(l)[0])
		}
		if !strings.HasPrefix(lines[0], "PATH") || strings.Join(paths, ",") != strings.Join(c.rows, ",") {
			t.Errorf("ls %s listed %q, want rows %q", c.prefix, out, c.rows)
		}
	}
	// An error names the path, never the hashed key.
	t.Setenv("COUPLET_DYAD_TIMEOUT", "300ms")
	_, err = runCLI(t, "dyad", "consume", "d/never.bin")
	if want := "dyad: d/never.bin not produced within 300ms"; err == nil || err.Error() != want {
		t.Errorf("consume of an unproduced file: %v, want %q", err, want)
	}
	os.Unsetenv("COUPLET_DYAD_TIMEOUT")
	if out, err = runCLI(t, "dyad", "stat", "d/f.bin"); err != nil || !strings.Contains(out, "level:    local") {
		t.Fatalf("stat: %q %v", out, err)
	}
	t.Setenv("DYAD_DTL_MODE", "MARGO")
	if _, err = runCLI(t, "dyad", "consume", "d/f.bin"); err == nil || !strings.Contains(err.Error(), "not available on this platform") {
		t.Fatalf("margo: %v", err)
	}
}
