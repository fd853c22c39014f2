package dtf

import (
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/transport"
)

// probeCounter is a transport whose only use here is counting looks for
// control messages; none ever waits.
type probeCounter struct {
	transport.Transport
	looks int
}

func (p *probeCounter) TryRecv(int) (transport.Message, bool, error) {
	p.looks++
	return transport.Message{}, false, nil
}

// TestCallPollSpacing checks that API calls in a tight loop poll once per
// callPoll, not once per call, and poll again once callPoll has passed.
func TestCallPollSpacing(t *testing.T) {
	tr := &probeCounter{}
	e := &engine{tr: tr, files: map[string]*File{}}
	f := &File{e: e}
	call := func() {
		if err := f.lock(); err != nil {
			t.Fatal(err)
		}
		e.mu.Unlock()
	}
	start := time.Now()
	for range 100 {
		call()
	}
	// One poll, plus one per callPoll the loop took if it was descheduled.
	if most := 1 + int(time.Since(start)/callPoll); tr.looks > most {
		t.Fatalf("100 calls in a row polled %d times, want at most %d", tr.looks, most)
	}
	tr.looks = 1
	time.Sleep(callPoll)
	call()
	if tr.looks != 2 {
		t.Fatalf("a call after %v polled %d times in all, want 2", callPoll, tr.looks)
	}
}
