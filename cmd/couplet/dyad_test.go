package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runCLI runs the couplet command line in-process and returns its standard output.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	root.SetArgs(args)
	err := root.Execute()
	resetFlags(root)
	os.Stdout = old
	w.Close()
	out, _ := io.ReadAll(r)
	return string(out), err
}

// resetFlags returns every flag set by the last in-process run to its default, as a
// new process would have it.
func resetFlags(c *cobra.Command) {
	reset := func(f *pflag.Flag) {
		if !f.Changed {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			sv.Replace(nil)
		} else {
			f.Value.Set(f.DefValue)
		}
		f.Changed = false
	}
	c.Flags().VisitAll(reset)
	c.PersistentFlags().VisitAll(reset)
	for _, sub := range c.Commands() {
		resetFlags(sub)
	}
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

// TestDyadFlags runs the dyad commands configured by flags alone, by flags over a
// conflicting environment, and checks their errors and help.
func TestDyadFlags(t *testing.T) {
	tmp := t.TempDir()
	sockDir := shortDir(t)
	a, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "A"), Socket: filepath.Join(sockDir, "a"), LogWriter: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "B"), Socket: filepath.Join(sockDir, "b"), KVS: a.KVSEndpoint(),
		TokenFile: a.TokenFile(), LogWriter: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	os.MkdirAll(filepath.Join(tmp, "A", "d"), 0o755)
	os.WriteFile(filepath.Join(tmp, "A", "d", "g.bin"), []byte("hello"), 0o644)
	prodDir, consDir := filepath.Join(tmp, "A"), filepath.Join(tmp, "B")
	// The environment names another namespace and no directories: the flags win.
	for _, v := range []string{"DYAD_PATH_PRODUCER", "DYAD_PATH_CONSUMER", "DYAD_PATH_RELATIVE", "COUPLET_AGENT_SOCKET", "COUPLET_DYAD_TIMEOUT", "DYAD_DTL_MODE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("DYAD_KVS_NAMESPACE", "elsewhere")
	out, err := runCLI(t, "dyad", "produce", "--namespace", "flags", "--producer", prodDir, "--socket", a.Socket(), "--relative", "d/g.bin")
	if want := "d/g.bin\tversion 1\t5 bytes\tkey "; err != nil || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 {
		t.Fatalf("produce by flags: %q %v, want one line starting %q", out, err, want)
	}
	out, err = runCLI(t, "dyad", "consume", "--namespace", "flags", "--consumer", consDir, "--socket", b.Socket(), "--timeout", "30s", "--relative", "d/g.bin")
	if err != nil || !strings.HasPrefix(out, filepath.Join(consDir, "d", "g.bin")+"\t") {
		t.Fatalf("consume by flags: %q %v", out, err)
	}
	if got, _ := os.ReadFile(filepath.Join(consDir, "d", "g.bin")); string(got) != "hello" {
		t.Fatalf("consumed %q, want %q", got, "hello")
	}
	// The environment still works: the namespace from it, the rest by flags.
	t.Setenv("DYAD_KVS_NAMESPACE", "flags")
	out, err = runCLI(t, "dyad", "ls", "--consumer", consDir, "--socket", b.Socket(), "d/")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); err != nil || len(lines) != 2 || strings.Fields(lines[1])[0] != "d/g.bin" {
		t.Fatalf("ls with the namespace from the environment: %q %v", out, err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"timeout flag", []string{"dyad", "consume", "--consumer", consDir, "--socket", b.Socket(), "--timeout", "300ms", "--relative", "d/none.bin"},
			"dyad: d/none.bin not produced within 300ms"},
		{"relative path outside", []string{"dyad", "produce", "--producer", prodDir, "--socket", a.Socket(), "d/g.bin"},
			"dyad: d/g.bin is not under the producer managed directory " + prodDir +
				" (a relative path is taken from the working directory; with DYAD_PATH_RELATIVE=1 it is taken from the producer managed directory)"},
		{"bad timeout", []string{"dyad", "ls", "--socket", b.Socket(), "--timeout", "soon"},
			`dyad: bad environment: COUPLET_DYAD_TIMEOUT="soon" is not a positive duration`},
		{"produce without path", []string{"dyad", "produce"},
			"dyad produce: missing the PATH of a file to produce (usage: couplet dyad produce PATH... [flags])"},
		{"consume without path", []string{"dyad", "consume"},
			"dyad consume: missing the PATH of a file to consume (usage: couplet dyad consume PATH... [flags])"},
		{"stat without path", []string{"dyad", "stat"},
			"dyad stat: missing the PATH of a file (usage: couplet dyad stat PATH [flags])"},
		{"ls with two prefixes", []string{"dyad", "ls", "a", "b"},
			"dyad ls: takes at most 1 argument(s), got 2 (usage: couplet dyad ls [PATH-PREFIX] [flags])"},
		{"init-cluster without dir", []string{"agent", "init-cluster"},
			"agent init-cluster: missing the cluster directory DIR (usage: couplet agent init-cluster DIR [flags])"},
	}
	for _, c := range cases {
		if _, err := runCLI(t, c.args...); err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v\nwant %s", c.name, err, c.want)
		}
	}
	// Each dyad command's help lists the variables it reads.
	for _, sub := range []string{"produce", "consume", "ls", "stat"} {
		out, err := runCLI(t, "dyad", sub, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"DYAD_KVS_NAMESPACE", "DYAD_PATH_PRODUCER", "DYAD_PATH_CONSUMER", "DYAD_PATH_RELATIVE", "DYAD_DTL_MODE",
			"COUPLET_AGENT_SOCKET", "COUPLET_DYAD_TIMEOUT", "--namespace", "--socket", "--timeout", "--producer", "--consumer"} {
			if !strings.Contains(out, v) {
				t.Errorf("dyad %s --help does not list %s:\n%s", sub, v, out)
			}
		}
	}
}
