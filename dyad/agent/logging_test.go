package agent

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
)

// logLines is an agent log sink that wakes a waiter at every line written.
type logLines struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func newLogLines() *logLines { return &logLines{wrote: make(chan struct{}, 1)} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	select {
	case l.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (l *logLines) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	s := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	for s.Scan() {
		out = append(out, s.Text())
	}
	return out
}

// await returns the first line matching re, waiting for lines to be written.
func (l *logLines) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		for _, line := range l.lines() {
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		}
		select {
		case <-l.wrote:
		case <-deadline:
			t.Fatalf("no log line matches %s; log:\n%s", re, strings.Join(l.lines(), "\n"))
		}
	}
}

func TestSIRate(t *testing.T) {
	cases := []struct {
		n    int64
		d    time.Duration
		want string
	}{
		{0, time.Second, "0.0 B/s"},
		{999, time.Second, "999.0 B/s"},
		{1000, time.Second, "1.0 kB/s"},
		{3_000_000, 2 * time.Second, "1.5 MB/s"},
		{1 << 30, time.Second, "1.1 GB/s"},
		{999_960, time.Second, "1.0 MB/s"},
		{5_000_000_000_000, time.Second, "5.0 TB/s"},
		{1, 0, "inf"},
	}
	for _, c := range cases {
		if got := siRate(c.n, c.d); got != c.want {
			t.Errorf("siRate(%d, %v) = %q, want %q", c.n, c.d, got, c.want)
		}
	}
}

// TestAgentLog stages a file between two agents and checks their slog lines: the
// owner logs the fetch it served and the consumer's agent the stage, each at its end
// with path, size, seconds and an SI rate; a warning of the embedded etcd arrives in
// the same text stream, marked component=etcd, and no line is etcd's JSON.
func TestAgentLog(t *testing.T) {
	tmp := t.TempDir()
	sock := shortTemp(t)
	plog, clog := newLogLines(), newLogLines()
	prod, err := Start(Options{ProducerDir: filepath.Join(tmp, "p"), Socket: filepath.Join(sock, "p"), LogWriter: plog})
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	cons, err := Start(Options{ProducerDir: filepath.Join(tmp, "c"), Socket: filepath.Join(sock, "c"), KVS: prod.KVSEndpoint(),
		TokenFile: prod.TokenFile(), LogWriter: clog})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	const size = 3_000_001
	data := bytes.Repeat([]byte("0123456789"), size/10+1)[:size]
	if err := os.MkdirAll(filepath.Join(tmp, "p", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "p", "d", "f.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	pc, err := dyad.New(dyad.Config{Namespace: "log", ProducerDir: filepath.Join(tmp, "p"), AgentSocket: prod.Socket(), PathRelative: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Produce("d/f.bin"); err != nil {
		t.Fatal(err)
	}
	cc, err := dyad.New(dyad.Config{Namespace: "log", ConsumerDir: filepath.Join(tmp, "c"), AgentSocket: cons.Socket(), PathRelative: true,
		Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Consume("d/f.bin"); err != nil {
		t.Fatal(err)
	}
	check := func(name string, l *logLines, msg string) {
		re := regexp.MustCompile(`^time=\S+ level=INFO msg=` + msg + ` path=d/f\.bin size=(\d+) seconds=([0-9.e-]+) rate="([0-9.]+) (B|kB|MB|GB|TB)/s"`)
		m := l.await(t, re)
		if m[1] != strconv.Itoa(size) {
			t.Errorf("%s logged size %s, want %d", name, m[1], size)
		}
		secs, err := strconv.ParseFloat(m[2], 64)
		if err != nil || secs <= 0 {
			t.Fatalf("%s logged seconds %q", name, m[2])
		}
		// The rate is the size over the seconds, in SI units.
		scale := map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[m[4]]
		r, _ := strconv.ParseFloat(m[3], 64)
		if want := size / secs / scale; r < want*0.95-0.1 || r > want*1.05+0.1 {
			t.Errorf("%s logged rate %s %s/s for %d bytes in %s s (want about %.1f)", name, m[3], m[4], size, m[2], want)
		}
	}
	check("owner", plog, "served")
	check("consumer's agent", clog, "staged")

	// A client without a certificate makes the embedded etcd warn.
	conn, err := tls.Dial("tcp", prod.etcd.Endpoint(), &tls.Config{InsecureSkipVerify: true})
	if err == nil {
		fmt.Fprint(conn, "hello")
		conn.Close()
	}
	plog.await(t, regexp.MustCompile(`^time=\S+ level=WARN msg="rejected connection on client endpoint" component=etcd error=`))
	for _, l := range [][]string{plog.lines(), clog.lines()} {
		for _, line := range l {
			if !strings.HasPrefix(line, "time=") || !strings.Contains(line, " level=") {
				t.Errorf("not a slog text line: %q", line)
			}
		}
	}
}
