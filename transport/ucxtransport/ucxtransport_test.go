package ucxtransport

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/transport/rendezvous"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

const jobTimeout = 40 * time.Second

// startKVS starts an embedded etcd for the test.
func startKVS(t *testing.T) (url string, kv kvs.KV) {
	t.Helper()
	e, err := embedded.Start(embedded.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	url = "etcd://" + e.Endpoint()
	kv, err = kvs.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kv.Close() })
	return url, kv
}

// component is one separately launched component of a coupled run.
type component struct {
	name string
	np   int
}

var pair = []component{{"a", 2}, {"b", 3}}

// app is the mpirun application for component c of pair.
func app(prog, url, ns, tls string, c int, extra ...string) mpitest.App {
	names, sizes := make([]string, len(pair)), make([]string, len(pair))
	for i, p := range pair {
		names[i], sizes[i] = p.name, fmt.Sprint(p.np)
	}
	args := append([]string{"-kvs", url, "-ns", ns, "-comps", strings.Join(names, ","),
		"-sizes", strings.Join(sizes, ","), "-comp", fmt.Sprint(c)}, extra...)
	return mpitest.App{NP: pair[c].np, Prog: prog, Args: args, Env: []string{"UCX_TLS=" + tls}}
}

// check fails the test with the job's failure lines if it did not succeed.
func check(t *testing.T, name string, r mpitest.Result) {
	t.Helper()
	if r.Err == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "component %s: %v (timed out: %v)\n", name, r.Err, r.TimedOut)
	for _, f := range mpitest.Failures(r.Output) {
		fmt.Fprintf(&b, "  rank %d: %s\n", f.Rank, f.Msg)
	}
	b.WriteString(r.Output)
	t.Error(b.String())
}

// TestSeparateLaunches runs the two components as separate mpiruns, each
// start order over TCP and over shared memory, with stale keys of the
// first component left by an earlier run.
func TestSeparateLaunches(t *testing.T) {
	prog := mpitest.Build(t, "./testprog")
	url, kv := startKVS(t)
	for _, tls := range []string{"tcp", "sm"} {
		for first := range pair {
			t.Run(fmt.Sprintf("%s/%s-first", tls, pair[first].name), func(t *testing.T) {
				ctx := context.Background()
				ns := fmt.Sprintf("test/%s/%d", t.Name(), time.Now().UnixNano())
				name := pair[first].name
				// A previous run's leftovers: Join must clear them.
				stale := rendezvous.AddrKey(ns, name, 7)
				for k, v := range map[string]string{stale: "junk", rendezvous.SizeKey(ns, name): "99"} {
					if _, err := kv.Put(ctx, k, []byte(v)); err != nil {
						t.Fatal(err)
					}
				}
				results := make([]mpitest.Result, len(pair))
				firstDone := make(chan struct{})
				var wg sync.WaitGroup
				wg.Go(func() {
					defer close(firstDone)
					results[first] = mpitest.Launch(jobTimeout, app(prog, url, ns, tls, first))
				})
				// The second starts only once the first has registered.
				wctx, cancel := context.WithCancel(ctx)
				go func() {
					select {
					case <-firstDone:
						cancel()
					case <-wctx.Done():
					}
				}()
				want := fmt.Sprint(pair[first].np)
				_, err := kvs.WaitFor(wctx, kv, rendezvous.SizeKey(ns, name), 20*time.Second, func(v []byte) bool { return string(v) == want })
				cancel()
				if err != nil {
					wg.Wait()
					check(t, name, results[first])
					t.Fatalf("component %s did not register: %v", name, err)
				}
				second := 1 - first
				results[second] = mpitest.Launch(jobTimeout, app(prog, url, ns, tls, second))
				wg.Wait()
				for i, r := range results {
					check(t, pair[i].name, r)
					t.Logf("%s: %v", pair[i].name, r.Elapsed.Round(time.Millisecond))
				}
				left, _, err := kv.List(ctx, ns+"/")
				if err != nil {
					t.Fatal(err)
				}
				if len(left) != 0 {
					t.Errorf("keys left after Close: %v", left)
				}
			})
		}
	}
}

// TestPeerNeverStarts: a component alone gets a timeout naming its peer.
func TestPeerNeverStarts(t *testing.T) {
	prog := mpitest.Build(t, "./testprog")
	url, kv := startKVS(t)
	ns := fmt.Sprintf("test/%s/%d", t.Name(), time.Now().UnixNano())
	const timeout = 2 * time.Second
	r := mpitest.Launch(jobTimeout, app(prog, url, ns, "tcp", 0, "-timeout", timeout.String(), "-expect-missing", "b"))
	check(t, "a", r)
	if n := strings.Count(r.Output, `component "b" did not register within 2s`); n != pair[0].np {
		t.Errorf("%d ranks report the missing component, want %d; output:\n%s", n, pair[0].np, r.Output)
	}
	left, _, err := kv.List(context.Background(), ns+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("keys left after the failed join: %v", left)
	}
}

// TestCloseAfterPeerVanished: component b exits without Close (as if it
// crashed); a then sends to it, and its Close must still return in time.
func TestCloseAfterPeerVanished(t *testing.T) {
	prog := mpitest.Build(t, "./testprog")
	url, _ := startKVS(t)
	for _, tls := range []string{"tcp", "sm"} {
		t.Run(tls, func(t *testing.T) {
			ns := fmt.Sprintf("test/%s/%d", t.Name(), time.Now().UnixNano())
			var wg sync.WaitGroup
			results := make([]mpitest.Result, len(pair))
			for c, flag := range []string{"-after-vanish", "-vanish"} {
				wg.Go(func() { results[c] = mpitest.Launch(jobTimeout, app(prog, url, ns, tls, c, flag)) })
			}
			wg.Wait()
			for i, r := range results {
				check(t, pair[i].name, r)
			}
			t.Log(strings.Join(mpitest.RankLines(results[0].Output, 0), "\n"))
		})
	}
}

// TestBlockOver4GiB moves a 4.25 GiB block in 1 GiB messages over shared
// memory. It needs about 9 GiB of memory, so it runs only when
// COUPLET_BIG_TESTS is set.
func TestBlockOver4GiB(t *testing.T) {
	if os.Getenv("COUPLET_BIG_TESTS") == "" {
		t.Skip("set COUPLET_BIG_TESTS=1 to move a 4.25 GiB block (needs about 9 GiB of memory)")
	}
	prog := mpitest.Build(t, "./testprog")
	url, _ := startKVS(t)
	ns := fmt.Sprintf("test/%s/%d", t.Name(), time.Now().UnixNano())
	big := []string{"-chunk", "0", "-big", fmt.Sprint(int64(17) << 28)}
	var wg sync.WaitGroup
	results := make([]mpitest.Result, len(pair))
	for c := range pair {
		wg.Go(func() { results[c] = mpitest.Launch(5*time.Minute, app(prog, url, ns, "sm", c, big...)) })
	}
	wg.Wait()
	for i, r := range results {
		check(t, pair[i].name, r)
		t.Log(strings.Join(mpitest.RankLines(r.Output, 0), "\n"))
	}
}

// TestSingleCopy runs the two components as separate mpiruns with
// single-copy reads turned on (cma.Env): over shared memory every block of
// at least cma.MinBlock bytes between them comes by a read of the sender's
// memory (five such blocks from every peer of the other component), checked
// byte for byte as over UCX, and a mismatched or canceled one fails as it
// should. Where one side leaves them off, or UCX_TLS is tcp alone, none
// does; where the kernel refuses the reads (ranks without CAP_SYS_PTRACE
// that are not dumpable), every such block comes through UCX instead.
func TestSingleCopy(t *testing.T) {
	prog := mpitest.Build(t, "./testprog")
	url, _ := startKVS(t)
	const perPeer = 5 // "3-D strided, chunked", "1-D contiguous, chunked", twice "rows across chunks", the large mixed block
	all := [2]int{perPeer * pair[1].np, perPeer * pair[0].np}
	for _, c := range []struct {
		name    string
		tls     string
		on      [2]bool
		want    [2]int // reads per rank of each component
		refused [2]int // blocks per rank that came through UCX after a refused read
		noRead  bool   // ranks without CAP_SYS_PTRACE that are not dumpable after Join
	}{
		{"sm", "sm", [2]bool{true, true}, all, [2]int{}, false},
		{"sm, one side off", "sm", [2]bool{true, false}, [2]int{}, [2]int{}, false},
		{"tcp", "tcp", [2]bool{true, true}, [2]int{}, [2]int{}, false},
		// UCX's own shared memory then works without access to the peer,
		// as it must where Yama's ptrace_scope forbids it: no cma, and
		// posix memory opened by name, not through /proc/<pid>/fd.
		{"sm, reads refused", "posix,self", [2]bool{true, true}, [2]int{}, all, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := fmt.Sprintf("test/%s/%d", t.Name(), time.Now().UnixNano())
			var wg sync.WaitGroup
			results := make([]mpitest.Result, len(pair))
			for i := range pair {
				// Chunks of 16 KiB: a strided block under cma.MinBlock is
				// still posting its chunks when the next receive of its tag,
				// read by single copy, starts.
				a := app(prog, url, ns, c.tls, i, "-single-reads", fmt.Sprint(c.want[i]),
					"-single-refused", fmt.Sprint(c.refused[i]), "-chunk", "16384")
				if c.on[i] {
					a.Env = append(a.Env, cma.Env+"=1")
				}
				if c.noRead {
					// setpriv drops CAP_SYS_PTRACE: the ranks (root) may
					// read each other only while dumpable.
					a.Args = append([]string{"--bounding-set=-sys_ptrace", a.Prog, "-undumpable"}, a.Args...)
					a.Prog = "setpriv"
					a.Env = append(a.Env, "UCX_POSIX_USE_PROC_LINK=n")
				}
				wg.Go(func() { results[i] = mpitest.Launch(jobTimeout, a) })
			}
			wg.Wait()
			for i, r := range results {
				check(t, pair[i].name, r)
			}
		})
	}
}
