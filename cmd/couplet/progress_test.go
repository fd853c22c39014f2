package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/creack/pty"
)

// runWithStderr runs the couplet command (this test binary in main mode) with its
// standard error on a terminal (a pseudo-terminal, 100 columns) or on a pipe, and
// returns its standard output and all it wrote to its standard error.
func runWithStderr(t *testing.T, tty bool, env []string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), env...)
	var ob, eb bytes.Buffer
	cmd.Stdout = &ob
	got := make(chan struct{})
	if tty {
		ptmx, term, err := pty.Open()
		if err != nil {
			t.Fatalf("open a pseudo-terminal: %v", err)
		}
		defer ptmx.Close()
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = term
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		term.Close() // the child holds the only other end: reading ends when it exits
		go func() {
			io.Copy(&eb, ptmx) // ends with EIO once the terminal's last holder closed it
			close(got)
		}()
	} else {
		cmd.Stderr = &eb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		close(got)
	}
	err := cmd.Wait()
	<-got
	var ee *exec.ExitError
	if errors.As(err, &ee) || err != nil {
		t.Fatalf("couplet %v: %v\nstdout %q\nstderr %q", args, err, ob.String(), eb.String())
	}
	return ob.String(), eb.String()
}

// barLine matches one rendering of a bar as the terminal receives it: carriage return,
// description, percentage, bar, bytes done of the total, then the rate and times, which
// vary. clearLine matches the blanking of a rendering before the next one.
var (
	barLine   = regexp.MustCompile(`\r(produce|consume) (\S+) +(\d+)% \|[█ ]+\| \( *([\d.]+(?: [KMG]?i?B)?)/([\d.]+ [KMG]iB)(?:, [\d.]+ [KMG]?i?B/s)?\)(?: \[\w*:\w*\])?`)
	clearLine = regexp.MustCompile(`\r +\r`)
)

// TestDyadProgressBar produces and consumes files with the real commands, standard error
// on a terminal or a pipe: a file over 64 MiB gets a bar on a terminal, drawn from 0% to
// 100% with its size, and nothing at all is written to a pipe; a file of 64 MiB gets none.
func TestDyadProgressBar(t *testing.T) {
	tmp := t.TempDir()
	sockDir := shortDir(t)
	a, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "A"), Socket: filepath.Join(sockDir, "a"), LogWriter: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "B"), Socket: filepath.Join(sockDir, "b"), KVS: a.KVSEndpoint(),
		TokenFile: a.TokenFile(), LogWriter: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sizes := map[string]int64{"over-tty.bin": 65 << 20, "over-pipe.bin": 65 << 20, "edge.bin": 64 << 20}
	data := map[string][]byte{}
	for name, n := range sizes {
		data[name] = bytes.Repeat([]byte(name[:4]), int(n/4))
		if err := os.WriteFile(filepath.Join(tmp, "A", name), data[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"DYAD_KVS_NAMESPACE=bars", "DYAD_PATH_RELATIVE=1",
		"DYAD_PATH_PRODUCER=" + filepath.Join(tmp, "A"), "DYAD_PATH_CONSUMER=" + filepath.Join(tmp, "B")}
	for _, c := range []struct {
		op, file, socket string
		tty              bool
		bar              string // the total the bar shows; empty: nothing on standard error
	}{
		{"produce", "over-tty.bin", a.Socket(), true, "65 MiB"},
		{"consume", "over-tty.bin", b.Socket(), true, "65 MiB"},
		{"produce", "over-pipe.bin", a.Socket(), false, ""},
		{"consume", "over-pipe.bin", b.Socket(), false, ""},
		{"produce", "edge.bin", a.Socket(), true, ""},
		{"consume", "edge.bin", b.Socket(), true, ""},
	} {
		out, errOut := runWithStderr(t, c.tty, append(env, "COUPLET_AGENT_SOCKET="+c.socket), "dyad", c.op, c.file)
		name := c.op + " " + c.file
		if !c.tty {
			name += " (pipe)"
		}
		if c.op == "produce" && !strings.HasPrefix(out, c.file+"\tversion 1\t") || c.op == "consume" && !strings.HasPrefix(out, filepath.Join(tmp, "B", c.file)+"\t") {
			t.Errorf("%s: standard output %q", name, out)
		}
		if c.bar == "" {
			if errOut != "" {
				t.Errorf("%s: standard error %q, want nothing", name, errOut)
			}
			continue
		}
		// Every rendering is this file's bar, from empty to full, and nothing else is
		// written but the blanking between renderings and the final line end.
		ms := barLine.FindAllStringSubmatch(errOut, -1)
		if len(ms) < 2 {
			t.Errorf("%s: %d bar renderings on the terminal, want at least 2: %q", name, len(ms), errOut)
			continue
		}
		pct := 0
		for _, m := range ms {
			p, _ := strconv.Atoi(m[3])
			if m[1] != c.op || m[2] != c.file || m[5] != c.bar || p < pct {
				t.Errorf("%s: rendering %q after %d%%, want %s %s of %s", name, m[0], pct, c.op, c.file, c.bar)
			}
			pct = p
		}
		if first, last := ms[0], ms[len(ms)-1]; first[3] != "0" || first[4] != "0 B" || last[3] != "100" || last[4] != "65" {
			t.Errorf("%s: bar went from %q to %q, want 0%% (0 B) to 100%% (65 of %s)", name, first[0], last[0], c.bar)
		}
		if rest := clearLine.ReplaceAllString(barLine.ReplaceAllString(errOut, ""), ""); rest != "\r\n" {
			t.Errorf("%s: the terminal got %q besides the bar, want only the final line end", name, rest)
		}
	}
	for name := range sizes {
		if got, _ := os.ReadFile(filepath.Join(tmp, "B", name)); !bytes.Equal(got, data[name]) {
			t.Errorf("%s: consumed %d bytes differ from the %d produced", name, len(got), len(data[name]))
		}
	}
}
