package dyad_test

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
)

// benchBytes is the staged file size: COUPLET_BENCH_DYAD_BYTES (e.g. 1073741824 for the
// 1 GiB comparison), 64 MiB by default so that -bench stays quick.
func benchBytes(b *testing.B) int {
	if s := os.Getenv("COUPLET_BENCH_DYAD_BYTES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("COUPLET_BENCH_DYAD_BYTES=%q", s)
		}
		return n
	}
	return 64 << 20
}

func writeBenchFile(b *testing.B, path string, n int) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	chunk := randBytes(4<<20, 42)
	for left := n; left > 0; left -= len(chunk) {
		if _, err := f.Write(chunk[:min(left, len(chunk))]); err != nil {
			b.Fatal(err)
		}
	}
	f.Close()
}

// benchConsume times cons staging a file of n bytes that prod produces, b.N times. One
// untimed staging goes first: the first fetch from an owner also connects and
// authenticates (and, over UCX, sets up the endpoint and the window), which a short run
// would otherwise mostly measure.
func benchConsume(b *testing.B, prod, cons *node, n int) {
	writeBenchFile(b, filepath.Join(prod.dir, "big.bin"), n)
	if _, err := prod.client.Produce("big.bin"); err != nil {
		b.Fatal(err)
	}
	dest := filepath.Join(cons.dir, "big.bin")
	b.SetBytes(int64(n))
	for i := -1; i < b.N; i++ {
		b.StopTimer()
		os.Remove(dest) // the local copy goes, so every iteration fetches
		if i == 0 {
			b.ResetTimer()
		}
		b.StartTimer()
		if _, err := cons.client.Consume("big.bin"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStaging compares, side by side, staging a file between two agents with a raw
// loopback TCP copy of the same bytes into a file and with cp through a shared directory.
func BenchmarkStaging(b *testing.B) {
	n := benchBytes(b)
	b.Run("agents", func(b *testing.B) {
		prod, cons := pair(b)
		benchConsume(b, prod, cons, n)
	})
	b.Run("rawtcp", func(b *testing.B) {
		dir := b.TempDir()
		src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
		writeBenchFile(b, src, n)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				f, _ := os.Open(src)
				io.Copy(c, f) // sendfile, as the agent uses
				f.Close()
				c.Close()
			}
		}()
		buf := make([]byte, 1<<20)
		b.SetBytes(int64(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			f, _ := os.Create(dst)
			got, err := io.CopyBuffer(struct{ io.Writer }{f}, struct{ io.Reader }{c}, buf)
			f.Close()
			c.Close()
			if err != nil || got != int64(n) {
				b.Fatalf("raw copy: %d bytes, %v", got, err)
			}
		}
	})
	b.Run("cp", func(b *testing.B) {
		dir := b.TempDir()
		src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "shared", "dst")
		writeBenchFile(b, src, n)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		b.SetBytes(int64(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			os.Remove(dst)
			b.StartTimer()
			if out, err := exec.Command("cp", src, dst).CombinedOutput(); err != nil {
				b.Fatalf("cp: %v %s", err, out)
			}
		}
	})
}

// BenchmarkLocator measures one lookup at each locator level and reports the median.
func BenchmarkLocator(b *testing.B) {
	prod, cons := pair(b)
	produce(b, prod, "loc.bin", randBytes(4096, 1))
	if _, err := cons.client.Consume("loc.bin"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, l := range []dyad.Level{dyad.LevelLocal, dyad.LevelAgent, dyad.LevelKVS} {
		b.Run(l.String(), func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t := time.Now()
				_, ok, err := cons.client.LookupLevel(ctx, l, "loc.bin", 0)
				lat = append(lat, time.Since(t))
				if err != nil || !ok {
					b.Fatalf("level %v: found=%v err=%v", l, ok, err)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns")
		})
	}
}
