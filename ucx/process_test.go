package ucx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The two-process test runs this test binary a second time as a helper
// peer (selected by helperEnv). The two exchange worker addresses through
// files in a temporary directory: test plumbing only, the product uses the KVS.
const (
	helperEnv  = "COUPLET_UCX_HELPER_DIR"
	helperWin  = 8 << 20
	tagEcho    = 1000
	tagCheck   = 2000
	tagVerdict = 2001
	tagBye     = 3000
)

// procSizes are the tag message sizes exchanged between the processes.
var procSizes = []int{1, 4097, 5<<20 + 3}

// card is what a process publishes about itself.
type card struct {
	Addr    []byte
	WinAddr uint64
	Rkey    []byte
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		if err := runHelper(dir); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func publish(dir, name string, c card) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, name+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// lookup waits for the peer's card, polling with sleeps that back off.
func lookup(dir, name string, d time.Duration) (card, error) {
	var c card
	deadline := time.Now().Add(d)
	pause := time.Millisecond
	for {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			return c, json.Unmarshal(b, &c)
		}
		if time.Now().After(deadline) {
			return c, fmt.Errorf("no card %q after %v: %w", name, d, ErrTimeout)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// runHelper is the peer process: it takes UCX_TLS from the environment,
// offers a window, echoes tag messages, and checks what was put into it.
func runHelper(dir string) error {
	mode := ErrModeNone
	if os.Getenv("UCX_TLS") == "tcp" {
		mode = ErrModePeer
	}
	c, err := NewContext(&Options{ErrMode: mode})
	if err != nil {
		return err
	}
	defer c.Close()
	w, err := c.NewWorker(ThreadSerialized)
	if err != nil {
		return err
	}
	defer w.Close()
	win, err := c.MemAlloc(helperWin)
	if err != nil {
		return err
	}
	defer win.Unmap()
	pattern(win.Bytes(), 0x11)
	addr, err := w.Address()
	if err != nil {
		return err
	}
	rkey, err := win.PackRkey()
	if err != nil {
		return err
	}
	if err := publish(dir, "helper", card{addr, win.Addr(), rkey}); err != nil {
		return err
	}
	parent, err := lookup(dir, "parent", testTimeout)
	if err != nil {
		return err
	}
	ep, err := w.Connect(parent.Addr)
	if err != nil {
		return err
	}
	buf := make([]byte, 6<<20)
	for i := range procSizes {
		r, err := w.RecvTag(buf, uint64(i), TagMaskAll)
		if err != nil {
			return err
		}
		if err := r.Wait(testTimeout); err != nil {
			return err
		}
		n, _ := r.Info()
		if n != procSizes[i] {
			return fmt.Errorf("message %d has %d bytes, want %d", i, n, procSizes[i])
		}
		if j := firstBad(buf[:n], byte(i)); j >= 0 {
			return fmt.Errorf("message %d of %d bytes wrong at byte %d", i, n, j)
		}
		s, err := ep.SendTag(buf[:n], tagEcho+uint64(i))
		if err != nil {
			return err
		}
		if err := s.Wait(testTimeout); err != nil {
			return err
		}
	}
	// The parent has put into the upper half and flushed; then it asks.
	r, err := w.RecvTag(buf[:1], tagCheck, TagMaskAll)
	if err != nil {
		return err
	}
	if err := r.Wait(testTimeout); err != nil {
		return err
	}
	verdict := "ok"
	half := helperWin / 2
	if i := firstBad(win.Bytes()[:half], 0x11); i >= 0 {
		verdict = fmt.Sprintf("lower half changed at byte %d", i)
	} else if i := firstBad(win.Bytes()[half:], 0x22); i >= 0 {
		verdict = fmt.Sprintf("put data wrong at byte %d of the upper half", i)
	}
	s, err := ep.SendTag([]byte(verdict), tagVerdict)
	if err != nil {
		return err
	}
	if err := s.Wait(testTimeout); err != nil {
		return err
	}
	bye, err := w.RecvTag(buf[:1], tagBye, TagMaskAll)
	if err != nil {
		return err
	}
	if err := bye.Wait(testTimeout); err != nil {
		return err
	}
	return ep.Close(5 * time.Second)
}

func TestTwoProcesses(t *testing.T) {
	for _, tls := range transports {
		t.Run(tls, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir, "UCX_TLS="+tls)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				cmd.Process.Kill()
				<-exited
			}()

			a := newNode(t, tls)
			helper, err := lookup(dir, "helper", testTimeout)
			if err != nil {
				t.Fatal(err)
			}
			addr, err := a.w.Address()
			if err != nil {
				t.Fatal(err)
			}
			if err := publish(dir, "parent", card{Addr: addr}); err != nil {
				t.Fatal(err)
			}
			ep, err := a.w.Connect(helper.Addr)
			if err != nil {
				t.Fatal(err)
			}

			for i, n := range procSizes {
				src := make([]byte, n)
				pattern(src, byte(i))
				echo := make([]byte, n)
				r, err := a.w.RecvTag(echo, tagEcho+uint64(i), TagMaskAll)
				if err != nil {
					t.Fatal(err)
				}
				s, err := ep.SendTag(src, uint64(i))
				if err != nil {
					t.Fatal(err)
				}
				if err := WaitAll(a.w, []*Request{s, r}, testTimeout); err != nil {
					t.Fatalf("size %d: %v\nhelper output:\n%s", n, err, out.String())
				}
				if got, _ := r.Info(); got != n {
					t.Fatalf("echo has %d bytes, want %d", got, n)
				}
				if j := firstBad(echo, byte(i)); j >= 0 {
					k := j
					for k < n && echo[k] == 0 {
						k++
					}
					t.Fatalf("echo of %d bytes: wrong from byte %d (zeros up to %d)\nhelper output:\n%s", n, j, k, out.String())
				}
			}

			rk, err := ep.UnpackRkey(helper.Rkey)
			if err != nil {
				t.Fatal(err)
			}
			defer rk.Destroy()
			half := helperWin / 2
			got := make([]byte, half)
			g, err := ep.Get(got, helper.WinAddr, rk)
			if err != nil {
				t.Fatal(err)
			}
			src := make([]byte, half)
			pattern(src, 0x22)
			p, err := ep.Put(src, helper.WinAddr+uint64(half), rk)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ep.Flush()
			if err != nil {
				t.Fatal(err)
			}
			if err := WaitAll(a.w, []*Request{g, p, f}, testTimeout); err != nil {
				t.Fatal(err)
			}
			checkPattern(t, "get from the helper's window", got, 0x11)

			verdict := make([]byte, 100)
			vr, err := a.w.RecvTag(verdict, tagVerdict, TagMaskAll)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ep.SendTag([]byte{1}, tagCheck)
			if err != nil {
				t.Fatal(err)
			}
			if err := WaitAll(a.w, []*Request{c, vr}, testTimeout); err != nil {
				t.Fatal(err)
			}
			if n, _ := vr.Info(); string(verdict[:n]) != "ok" {
				t.Fatalf("helper saw the window as: %s", verdict[:n])
			}
			b, err := ep.SendTag([]byte{1}, tagBye)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Wait(testTimeout); err != nil {
				t.Fatal(err)
			}
			// Serve the helper's endpoint close until it exits.
			var exitErr error
			if err := a.w.WaitTimeout(testTimeout, func() bool {
				select {
				case exitErr = <-exited:
					exited <- exitErr
					return true
				default:
					return false
				}
			}); err != nil {
				t.Fatalf("helper did not exit: %v\n%s", err, out.String())
			}
			if exitErr != nil {
				t.Fatalf("helper failed: %v\n%s", exitErr, out.String())
			}

			// The peer is gone: a send must end, with an error, not hang.
			start := time.Now()
			s, err := ep.SendTag(make([]byte, 1<<20), 1)
			if err == nil {
				err = s.Wait(3 * time.Second)
			}
			t.Logf("send to the exited helper after %v: %v", time.Since(start).Round(time.Millisecond), err)
			if tls == "tcp" && (err == nil || errors.Is(err, ErrTimeout)) {
				t.Fatalf("over tcp a send to an exited peer should fail with a UCX error, got %v", err)
			}
			ep.Close(time.Second)
		})
	}
}
