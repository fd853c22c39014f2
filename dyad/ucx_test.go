package dyad_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// ucxTransports are the UCX_TLS settings that work on this platform (REFERENCE.md §5).
var ucxTransports = []string{"tcp", "sm"}

// ucxOpts makes an agent fetch over the ucx DTL with transport tls and a window of slots
// slots of slot bytes (small windows force many chunks and slot reuse).
func ucxOpts(tls string, slot, slots int) func(*agent.Options) {
	return func(o *agent.Options) {
		o.DTL, o.UCXTLS, o.UCXSlot, o.UCXSlots = "UCX", tls, slot, slots
	}
}

// ucxPair starts a producer node and a consumer node, both on the ucx DTL.
func ucxPair(t testing.TB, tls string, slot, slots int) (prod, cons *node) {
	prod = startNode(t, "", ucxOpts(tls, slot, slots))
	cons = startNode(t, prod.agent.KVSEndpoint(), ucxOpts(tls, slot, slots))
	return prod, cons
}

// servedOverUCX checks that the producer served n fetches, all of them over UCX.
func servedOverUCX(t *testing.T, prod *node, n int64) {
	t.Helper()
	c := prod.agent.Counters()
	if c["fetches_served"] != n || c["ucx_fetches_served"] != n {
		t.Fatalf("producer served %d fetches, %d over UCX; want %d over UCX", c["fetches_served"], c["ucx_fetches_served"], n)
	}
}

func TestUCXProduceThenConsume(t *testing.T) {
	for _, tls := range ucxTransports {
		t.Run(tls, func(t *testing.T) {
			// 256 KiB slots, 3 of them: the 3 MiB file takes 13 chunks and reuses every slot.
			prod, cons := ucxPair(t, tls, 256<<10, 3)
			for i, size := range []int{3<<20 + 17, 1, 256 << 10} {
				rel := fmt.Sprintf("run/frame%d.bin", i)
				data := randBytes(size, uint64(i+20))
				produce(t, prod, rel, data)
				consumeCheck(t, cons, rel, data)
			}
			// An empty file needs no chunk at all.
			produce(t, prod, "run/empty.bin", nil)
			consumeCheck(t, cons, "run/empty.bin", []byte{})
			servedOverUCX(t, prod, 4)
			if c := cons.agent.Counters(); c["stages"] != 4 {
				t.Fatalf("consumer staged %d files, want 4", c["stages"])
			}
			noTemps(t, cons.dir)
		})
	}
}

// TestUCXZerosAndSparse stages a file with zero runs: the copy is byte-identical and its
// zero blocks stay holes.
func TestUCXZerosAndSparse(t *testing.T) {
	prod, cons := ucxPair(t, "sm", 1<<20, 2)
	data := make([]byte, 8<<20)
	copy(data[100:], randBytes(1000, 1))      // data, then 7.9 MiB of zeros...
	copy(data[5<<20+3:], randBytes(70000, 2)) // ...broken by an unaligned run
	data[len(data)-1] = 1
	produce(t, prod, "sparse.bin", data)
	consumeCheck(t, cons, "sparse.bin", data)
	st, err := os.Stat(filepath.Join(cons.dir, "sparse.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if used := st.Sys().(*syscall.Stat_t).Blocks * 512; used >= int64(len(data))/2 {
		t.Errorf("consumed copy uses %d bytes on disk for %d bytes mostly zero", used, len(data))
	}
}

func TestUCXConcurrentConsumers(t *testing.T) {
	for _, tls := range ucxTransports {
		t.Run(tls, func(t *testing.T) {
			prod, cons := ucxPair(t, tls, 512<<10, 2)
			const files, perFile = 10, 3 // more files than the agent's 8 windows
			want := make([][]byte, files)
			for i := range want {
				want[i] = randBytes(1<<20+i*4097, uint64(100+i))
				produce(t, prod, fmt.Sprintf("c/%d.bin", i), want[i])
			}
			var wg sync.WaitGroup
			errs := make(chan error, files*perFile)
			for i := 0; i < files*perFile; i++ {
				f := i % files
				wg.Go(func() {
					c := newClient(t, cons.dir, cons.socket, nil)
					p, err := c.Consume(fmt.Sprintf("c/%d.bin", f))
					if err != nil {
						errs <- err
						return
					}
					got, err := os.ReadFile(p)
					if err != nil || string(got) != string(want[f]) {
						errs <- fmt.Errorf("file %d: %d bytes differ from %d produced (%v)", f, len(got), len(want[f]), err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			// Consumers of the same file share one fetch.
			servedOverUCX(t, prod, files)
			noTemps(t, cons.dir)
		})
	}
}

// TestUCXMixedDTL: an rpc consumer and a ucx consumer fetch from the same producer agent.
func TestUCXMixedDTL(t *testing.T) {
	// The producer fetches over rpc itself but serves both; its UCX must reach the consumer's.
	prod := startNode(t, "", func(o *agent.Options) { o.DTL, o.UCXTLS = "rpc", "tcp" })
	rpc := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) { o.DTL = "rpc" })
	ux := startNode(t, prod.agent.KVSEndpoint(), ucxOpts("tcp", 1<<20, 2))
	data := randBytes(5<<20+3, 9)
	produce(t, prod, "m.bin", data)
	consumeCheck(t, rpc, "m.bin", data)
	consumeCheck(t, ux, "m.bin", data)
	if c := prod.agent.Counters(); c["fetches_served"] != 2 || c["ucx_fetches_served"] != 1 {
		t.Fatalf("counters %v: want 2 fetches, 1 over UCX", c)
	}
}

func TestUCXTokenRequired(t *testing.T) {
	tok := func(s string) func(*agent.Options) {
		return func(o *agent.Options) {
			ucxOpts("tcp", 1<<20, 2)(o)
			o.Token = s
		}
	}
	prod := startNode(t, "", tok("s3cret-cluster-token"))
	data := randBytes(2<<20, 3)
	produce(t, prod, "t.bin", data)
	bad := startNode(t, prod.agent.KVSEndpoint(), tok("wrong-cluster-token"))
	if _, err := bad.client.Consume("t.bin"); err == nil || !strings.Contains(err.Error(), "not signed with the cluster key") {
		t.Fatalf("consume with a wrong token: %v, want the record refused", err)
	}
	good := startNode(t, prod.agent.KVSEndpoint(), tok("s3cret-cluster-token"))
	consumeCheck(t, good, "t.bin", data)
	servedOverUCX(t, prod, 1)
}

// TestUCXKillProducerAgentMidTransfer kills the producer's agent while it puts a file into
// the consumer's window: the consumer fails promptly, leaves no partial file, and succeeds
// after the producer's agent restarts.
func TestUCXKillProducerAgentMidTransfer(t *testing.T) {
	for _, tls := range ucxTransports {
		t.Run(tls, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "prod")
			listen, ec, ep := etcdtest.StableAddr(t), etcdtest.StableAddr(t), etcdtest.StableAddr(t)
			o := agent.Options{ProducerDir: dir, Token: testToken, Listen: listen, Socket: sockPath(t), EtcdClient: ec, EtcdPeer: ep,
				ChunkSize: 256 << 10, ChunkDelay: 25 * time.Millisecond}
			ucxOpts(tls, 1<<20, 2)(&o)
			sub := startSubAgent(t, o)
			cons := startNode(t, sub.kvs, ucxOpts(tls, 1<<20, 2))
			pc := newClient(t, dir, o.Socket, nil)
			data := randBytes(16<<20, 10) // 64 puts of 256 KiB, 25 ms apart: about 1.6 s
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o644)
			if _, err := pc.Produce("big.bin"); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := cons.client.Consume("big.bin"); done <- err }()
			awaitDir(t, cons.dir, time.Minute, "the transfer of big.bin started", func() bool { return tempGrown(cons.dir, "big.bin", 1<<20) })
			killed := time.Now()
			sub.cmd.Process.Signal(os.Kill)
			sub.cmd.Wait()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("consume succeeded although the producer's agent was killed mid-transfer")
				}
				t.Logf("consume failed %v after the kill, as expected: %v", time.Since(killed).Round(time.Millisecond), err)
			case <-time.After(40 * time.Second):
				t.Fatal("consumer hung after the producer's agent died")
			}
			if _, err := os.Stat(filepath.Join(cons.dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("partial file left at the destination: %v", err)
			}
			noTemps(t, cons.dir)
			o.ChunkDelay = 0
			startSubAgent(t, o)
			consumeCheck(t, cons, "big.bin", data)
		})
	}
}

// TestUCXLargerThan4GiB stages a sparse file of 4 GiB + 3 MiB whose data straddles the
// 4 GiB offset, over shared memory with the default window (4 slots of 4 MiB): 1025
// chunks, offsets past 2^32, slots reused about 256 times each. The stage verifies size
// and CRC-32C of all bytes; the test rereads the data around the boundary.
func TestUCXLargerThan4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("stages 4 GiB")
	}
	prod, cons := ucxPair(t, "sm", 0, 0)
	// Checksumming 4 GiB on a loaded 2-core machine can outlast the helpers' 10 s timeout.
	slow := func(c *dyad.Config) { c.Timeout = 2 * time.Minute }
	prod.client = newClient(t, prod.dir, prod.socket, slow)
	cons.client = newClient(t, cons.dir, cons.socket, slow)
	const size = 4<<30 + 3<<20
	head, mid := randBytes(4096, 1), randBytes(1<<20, 2)
	midOff := int64(1<<32 - 512<<10) // half below 2^32, half above
	p := filepath.Join(prod.dir, "huge.bin")
	os.MkdirAll(prod.dir, 0o755)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		b   []byte
		off int64
	}{{head, 0}, {mid, midOff}, {[]byte{0xfe}, size - 1}} {
		if _, err := f.WriteAt(w.b, w.off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	start := time.Now()
	if _, err := prod.client.Produce("huge.bin"); err != nil {
		t.Fatal(err)
	}
	t.Logf("produced (checksummed) in %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	got, err := cons.client.Consume("huge.bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("staged 4 GiB + 3 MiB over UCX in %v", time.Since(start).Round(time.Millisecond))
	servedOverUCX(t, prod, 1)
	g, err := os.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	st, _ := g.Stat()
	if st.Size() != size {
		t.Fatalf("consumed %d bytes, want %d", st.Size(), size)
	}
	for _, w := range []struct {
		b   []byte
		off int64
	}{{head, 0}, {mid, midOff}, {make([]byte, 4096), midOff + 1<<20}, {[]byte{0xfe}, size - 1}} {
		b := make([]byte, len(w.b))
		if _, err := g.ReadAt(b, w.off); err != nil || string(b) != string(w.b) {
			t.Fatalf("%d bytes at %d differ (%v)", len(b), w.off, err)
		}
	}
	t.Logf("copy uses %d MiB on disk", st.Sys().(*syscall.Stat_t).Blocks*512>>20)
}

// TestUCXClientChoosesDTL: the consumer's DYAD_DTL_MODE travels with its staging request
// and overrides its agent's own DTL, both ways.
func TestUCXClientChoosesDTL(t *testing.T) {
	prod := startNode(t, "", func(o *agent.Options) { o.DTL, o.UCXTLS = "rpc", "tcp" })
	cons := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) { o.DTL, o.UCXTLS = "rpc", "tcp" })
	data := randBytes(2<<20+5, 11)
	for i, c := range []struct {
		mode    string
		wantUCX int64
	}{{"UCX", 1}, {"FLUX_RPC", 1}, {"ucx", 2}, {"", 2}} {
		rel := fmt.Sprintf("choose%d.bin", i)
		produce(t, prod, rel, data)
		cl := newClient(t, cons.dir, cons.socket, func(cfg *dyad.Config) {
			if c.mode != "" {
				d, err := dyad.ParseDTL(c.mode)
				if err != nil {
					t.Fatal(err)
				}
				cfg.DTL = d
			}
		})
		p, err := cl.Consume(rel)
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		if got, _ := os.ReadFile(p); string(got) != string(data) {
			t.Fatalf("%s: staged copy differs", c.mode)
		}
		if got := prod.agent.Counters(); got["fetches_served"] != int64(i+1) || got["ucx_fetches_served"] != c.wantUCX {
			t.Fatalf("after DYAD_DTL_MODE=%q: counters %v, want %d fetches, %d over UCX", c.mode, got, i+1, c.wantUCX)
		}
	}
	// A DTL the platform lacks is refused by the agent with a clear error.
	m, _, err := cons.client.Stat(context.Background(), "choose0.bin")
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", cons.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wire.Write(c, &wire.Msg{Op: wire.OpStage, NS: "test", Key: m.Key, Dest: filepath.Join(cons.dir, "margo.bin"),
		Path: filepath.Join(cons.dir, ".couplet", "meta", "margo.bin.meta"), Meta: m, DTL: "MARGO"})
	r, err := wire.Read(c)
	if err != nil || r.Op != wire.OpError || !strings.Contains(r.Err, "not available on this platform") {
		t.Fatalf("stage over MARGO: %+v %v, want an error naming the missing DTL", r, err)
	}
}
