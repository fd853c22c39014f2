package dyadlib

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
	codec "github.com/couplet-hpc/couplet/internal/wire"
)

// lines runs wiretest in mode with one input line per element and returns its lines.
func lines(t *testing.T, mode string, in []string) []string {
	t.Helper()
	cmd := exec.Command(wiretest(t), mode)
	cmd.Stdin = strings.NewReader(strings.Join(in, "\n") + "\n")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wiretest %s: %v\n%s", mode, err, errb.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(in) {
		t.Fatalf("wiretest %s: %d lines for %d inputs", mode, len(got), len(in))
	}
	return got
}

// TestCEncodesRequests: what the C client encodes, the Go codec decodes to the same Msg.
func TestCEncodesRequests(t *testing.T) {
	long := strings.Repeat("d/", 200) + "f.bin" // a str16 path
	meta := &wire.Meta{Key: "3a.1.ff.a/b", Path: "a/b", Owner: "127.0.0.1:4000", Node: "n1", Size: 5 << 30,
		Version: 300, Checksum: 0xdeadbeef, MTimeNs: 1700000000123456789}
	cases := []*wire.Msg{
		{Op: wire.OpPublish, NS: "ns", Key: meta.Key, Path: "/p/a/b", Meta: meta},
		{Op: wire.OpLookup, NS: "ns", Key: "k"},
		{Op: wire.OpWait, NS: "ns", Key: "k", TimeoutMs: 120000, MinVersion: 70000},
		{Op: wire.OpWait, NS: "ns", Key: "k"},
		{Op: wire.OpStage, NS: "ns", Key: "k", Dest: "/c/" + long, Path: "/c/.couplet/meta/x.meta",
			Meta: &wire.Meta{Key: "k", Path: long, Size: 0, Version: 1, Checksum: 0}, DTL: "ucx"},
		{Op: wire.OpStage, NS: "ns", Key: "k", Dest: "/d", Path: "/s", Meta: &wire.Meta{Key: "k", Size: 200, Version: 65536, Checksum: 1}},
		// A consume in one request: by key, with its wait and its transfer timeout.
		{Op: wire.OpStage, NS: "ns", Key: "k", Dest: "/d", Path: "/s", DTL: "rpc", WaitMs: 60000, TimeoutMs: 600000},
	}
	var in []string
	for _, m := range cases {
		f := []string{fmt.Sprint(int(m.Op)), m.NS, m.Key, m.Path, m.Dest, m.DTL, fmt.Sprint(m.MinVersion), fmt.Sprint(m.TimeoutMs), fmt.Sprint(m.WaitMs)}
		if mm := m.Meta; mm != nil {
			f = append(f, mm.Key, mm.Path, mm.Owner, mm.Node, fmt.Sprint(mm.Size), fmt.Sprint(mm.Version),
				fmt.Sprint(mm.Checksum), fmt.Sprint(mm.MTimeNs))
		}
		in = append(in, strings.Join(f, "\t"))
	}
	for i, h := range lines(t, "encode", in) {
		body, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("case %d: %q", i, h)
		}
		got, err := wire.Decode(body)
		if err != nil {
			t.Fatalf("case %d: Go cannot decode the C encoding %s: %v", i, h, err)
		}
		if !reflect.DeepEqual(got, cases[i]) {
			t.Errorf("case %d: C encoded %+v (meta %+v), want %+v (meta %+v)", i, got, got.Meta, cases[i], cases[i].Meta)
		}
	}
}

func metaString(m *wire.Meta) string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf(" meta=%s|%s|%s|%s|%d|%d|%d|%d", m.Key, m.Path, m.Owner, m.Node, m.Size, m.Version, m.Checksum, m.MTimeNs)
}

// TestCDecodesReplies: what the agent (the Go codec) encodes, the C client decodes; and
// malformed or truncated replies are refused, never crash it.
func TestCDecodesReplies(t *testing.T) {
	replies := []*wire.Msg{
		{Op: wire.OpEnd, Found: true, Meta: &wire.Meta{Key: "1.2.3.a", Path: "a", Owner: "127.0.0.1:1", Node: "h",
			Size: 1 << 40, Version: 1 << 33, Checksum: 0xffffffff, MTimeNs: -5}},
		{Op: wire.OpEnd},
		{Op: wire.OpError, Err: "\"k\" not produced: timed out"},
		{Op: wire.OpEnd, Counters: map[string]int64{"stages": 3}, Found: true, Meta: &wire.Meta{Key: "k"}},
		{Op: wire.OpFetchUCX, Win: &wire.Window{Worker: []byte{1, 2}, Addr: 1 << 40, Rkey: []byte{3}, SlotSize: 4 << 20, Slots: 4}},
		{Op: wire.OpReady, Off: 1<<32 + 5, Len: 1 << 20},
	}
	var in, want []string
	var valid [][]byte
	for _, m := range replies {
		b, err := codec.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		valid = append(valid, b)
		in = append(in, hex.EncodeToString(b))
		errs := "<nil>"
		if m.Err != "" {
			errs = m.Err
		}
		found := 0
		if m.Found {
			found = 1
		}
		want = append(want, fmt.Sprintf("ok op=%d found=%d err=%s%s", m.Op, found, errs, metaString(m.Meta)))
	}
	for i, got := range lines(t, "decode", in) {
		if got != want[i] {
			t.Errorf("reply %d: C decoded %q, want %q", i, got, want[i])
		}
	}
	// Every strict prefix of a valid reply is refused.
	in = in[:0]
	for _, b := range valid {
		for n := 0; n < len(b); n++ {
			in = append(in, hex.EncodeToString(b[:n]))
		}
	}
	for i, got := range lines(t, "decode", in) {
		if !strings.HasPrefix(got, "bad ") {
			t.Fatalf("truncated reply %s accepted: %q", in[i], got)
		}
	}
	// Random bytes and random corruptions are refused or decoded, never a crash.
	rng := rand.New(rand.NewPCG(5, 6))
	in = in[:0]
	for i := 0; i < 3000; i++ {
		var b []byte
		if i%2 == 0 {
			b = make([]byte, rng.IntN(64))
			for k := range b {
				b[k] = byte(rng.Uint32())
			}
		} else {
			b = bytes.Clone(valid[rng.IntN(len(valid))])
			for k := 0; k < 1+rng.IntN(3); k++ {
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			}
		}
		in = append(in, hex.EncodeToString(b))
	}
	for i, got := range lines(t, "decode", in) {
		if !strings.HasPrefix(got, "bad ") && !strings.HasPrefix(got, "ok op=") {
			t.Fatalf("input %s: %q", in[i], got)
		}
	}
}

// TestCKeyMatchesGo: the C key equals dyad.PathKey at every length from 1 to 300 (so
// for every len % 16 of the paths of 128 bytes or more, where C DYAD's MurmurHash3
// differs from the textbook) and for several key shapes; plus REFERENCE.md's vectors.
func TestCKeyMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789_./-"
	var in, want []string
	for n := 1; n <= 300; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		for _, shape := range [][2]int{{3, 1024}, {2, 256}, {4, 7}, {0, 1}} {
			in = append(in, fmt.Sprintf("%d\t%d\t%s", shape[0], shape[1], b))
			want = append(want, dyad.PathKey(string(b), shape[0], shape[1]))
		}
	}
	in = append(in, "3\t1024\t1/data0.txt", "2\t256\t1/data0.txt")
	want = append(want, "263.2ce.2e1.1/data0.txt", "63.ce.1/data0.txt")
	for i, got := range lines(t, "key", in) {
		if got != want[i] {
			t.Fatalf("key of %q: C %q, Go %q", in[i], got, want[i])
		}
	}
}

// TestCChecksum: the C CRC-32C equals Go's Castagnoli CRC at every length to 200.
func TestCChecksum(t *testing.T) {
	data := randBytes(200, 3)
	var in, want []string
	for n := 0; n <= 200; n++ {
		in = append(in, hex.EncodeToString(data[:n]))
		want = append(want, fmt.Sprintf("%08x", crc32.Checksum(data[:n], dyad.Castagnoli)))
	}
	for i, got := range lines(t, "crc", in) {
		if got != want[i] {
			t.Fatalf("crc of %d bytes: C %s, Go %s", i, got, want[i])
		}
	}
}

// TestCAgentSocketRule: DIR/.couplet/agent.sock, unless that is 108 bytes or longer:
// then $XDG_RUNTIME_DIR/couplet/H.sock, or /tmp/couplet-UID/H.sock without it, where H
// is the FNV-1a 64 of DIR in 16 lowercase hex digits.
func TestCAgentSocketRule(t *testing.T) {
	short := "/scratch/run1"
	long := "/" + strings.Repeat("x", 100)
	h := fmt.Sprintf("%016x", fnv1a(long))
	t.Setenv("XDG_RUNTIME_DIR", "")
	got := lines(t, "socket", []string{short, long})
	if got[0] != short+"/.couplet/agent.sock" {
		t.Errorf("socket for %s: %s", short, got[0])
	}
	if want := fmt.Sprintf("/tmp/couplet-%d/%s.sock", os.Getuid(), h); got[1] != want {
		t.Errorf("socket for a long dir: %s, want %s", got[1], want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	if got := lines(t, "socket", []string{long}); got[0] != "/run/user/7/couplet/"+h+".sock" {
		t.Errorf("socket for a long dir with XDG_RUNTIME_DIR: %s", got[0])
	}
}

func fnv1a(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 0x100000001b3
	}
	return h
}

// TestCCleanPath: managed-path matching sees paths as the Go client does.
func TestCCleanPath(t *testing.T) {
	cases := map[string]string{
		"-\t/a/b/../c/./d//e": "/a/c/d/e",
		"/base\tx/../y":       "/base/y",
		"/base\t../../..":     "/",
		"/\t.":                "/",
		"/b\t./":              "/b",
	}
	var in []string
	for k := range cases {
		in = append(in, k)
	}
	for i, got := range lines(t, "clean", in) {
		base, p, _ := strings.Cut(in[i], "\t")
		want := cases[in[i]]
		if base != "-" {
			want = filepath.Clean(filepath.Join(base, p))
		}
		if got != want || got != cases[in[i]] {
			t.Errorf("clean(%q) = %q, want %q", in[i], got, cases[in[i]])
		}
	}
}
