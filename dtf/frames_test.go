package dtf

import (
	"reflect"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/transport"
)

// frameLog is the transport of rank 0 of a test: it records what each frame
// it sends holds, and hands out the frames queued in incoming to TryRecv.
type frameLog struct {
	transport.Transport
	sent     []sentFrame
	incoming []transport.Message
	looks    int
}

// sentFrame is one transport message: its receiver and its envelopes' kinds.
type sentFrame struct {
	to    int
	kinds []kind
}

func (p *frameLog) Rank() int { return 0 }

func (p *frameLog) Send(to, tag int, data []byte) (transport.Pending, error) {
	ms, err := protocol.DecodeFrame(data)
	if err != nil {
		return nil, err
	}
	f := sentFrame{to: to}
	for _, m := range ms {
		f.kinds = append(f.kinds, m.Kind)
	}
	p.sent = append(p.sent, f)
	return sent{}, nil
}

func (p *frameLog) TryRecv(int) (transport.Message, bool, error) {
	p.looks++
	if len(p.incoming) == 0 {
		return transport.Message{}, false, nil
	}
	m := p.incoming[0]
	p.incoming = p.incoming[1:]
	return m, true, nil
}

// sent is a send that completed at once.
type sent struct{}

func (sent) Test() (bool, error) { return true, nil }
func (sent) Cancel() error       { return nil }

func frameEngine() (*engine, *frameLog) {
	tr := &frameLog{}
	return &engine{cfg: &config.Config{Timeout: time.Minute}, tr: tr, files: map[string]*File{}}, tr
}

// TestPollSendsOneFramePerPeer: what the handlers send during a poll goes
// out at its end, one frame per peer in the order of each peer's first
// message, and messages to this rank itself stay for it; outside a poll a
// message to a peer goes at once.
func TestPollSendsOneFramePerPeer(t *testing.T) {
	e, tr := frameEngine()
	e.holding = true
	for _, s := range []struct {
		to int
		k  kind
	}{{2, kSchedule}, {3, kExpect}, {2, kEpochDone}, {0, kSchedule}, {3, kRecs}, {2, kSchedule}} {
		if err := e.send(s.to, &envelope{Kind: s.k, Path: "a.nc"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(tr.sent) != 0 {
		t.Fatalf("sent %+v during the poll", tr.sent)
	}
	if err := e.sendHeld(); err != nil {
		t.Fatal(err)
	}
	want := []sentFrame{{2, []kind{kSchedule, kEpochDone, kSchedule}}, {3, []kind{kExpect, kRecs}}}
	if !reflect.DeepEqual(tr.sent, want) {
		t.Fatalf("frames %+v, want %+v", tr.sent, want)
	}
	if len(e.held) != 1 || e.held[0].to != 0 || e.held[0].m.Kind != kSchedule {
		t.Fatalf("held for this rank: %+v, want its SCHEDULE", e.held)
	}
	e.holding = false
	if err := e.send(1, &envelope{Kind: kWriteReqs, Path: "a.nc"}); err != nil {
		t.Fatal(err)
	}
	if got := tr.sent[len(tr.sent)-1]; len(tr.sent) != 3 || !reflect.DeepEqual(got, sentFrame{1, []kind{kWriteReqs}}) {
		t.Fatalf("frames %+v: want a WRITE_REQS to rank 1 sent at once", tr.sent)
	}
}

// TestOwnMessagesStayInProcess: a message to this rank itself never enters
// the transport; the next poll hands it to the handlers first, then every
// envelope of each waiting frame in order, with its sender.
func TestOwnMessagesStayInProcess(t *testing.T) {
	e, tr := frameEngine()
	if err := e.send(0, &envelope{Kind: kRecs, Path: "a.nc", NumRecs: 7}); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, m := range []*envelope{{Kind: kExpect, Path: "a.nc"}, {Kind: kRecs, Path: "b.nc", NumRecs: 2}} {
		var err error
		if b, err = m.AppendTo(b); err != nil {
			t.Fatal(err)
		}
	}
	tr.incoming = []transport.Message{{Source: 4, Tag: tagCtl, Data: b}}
	n, err := e.poll(true)
	if err != nil || n != 3 {
		t.Fatalf("poll handled %d, %v; want 3 messages", n, err)
	}
	if len(tr.sent) != 0 {
		t.Fatalf("sent %+v, want nothing: the message was this rank's own", tr.sent)
	}
	type got struct {
		k       kind
		from    int
		path    string
		numRecs int64
	}
	var mail []got
	for _, m := range e.mail {
		mail = append(mail, got{m.Kind, m.From, m.Path, m.NumRecs})
	}
	want := []got{{kRecs, 0, "a.nc", 7}, {kExpect, 4, "a.nc", 0}, {kRecs, 4, "b.nc", 2}}
	if !reflect.DeepEqual(mail, want) {
		t.Fatalf("mail %+v, want %+v", mail, want)
	}
}

// TestLongWaitSleeps: a wait for peers that do not answer yields between
// polls only for spinFor, then sleeps: waiting 200 ms costs the waiting
// thread a small part of that in CPU, not all of it.
func TestLongWaitSleeps(t *testing.T) {
	const wait = 200 * time.Millisecond
	e, tr := frameEngine()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ru unix.Rusage
		if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, start := cpu(), time.Now()
	e.mu.Lock()
	err := e.waitFor(func() string { return "the test" }, func() (bool, error) { return time.Since(start) >= wait, nil })
	e.mu.Unlock()
	used := cpu() - c0
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d looks, %v of CPU in %v", tr.looks, used, time.Since(start))
	if used > wait/4 {
		t.Fatalf("the wait used %v of CPU in %v: it polls without sleeping", used, time.Since(start))
	}
}
