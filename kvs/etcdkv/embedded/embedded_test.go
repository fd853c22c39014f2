package embedded

import (
	"errors"
	"net"
	"syscall"
	"testing"

	"github.com/couplet-hpc/couplet/kvs/etcdkv"
)

// TestStartRetriesTakenPort: a port found free but taken before etcd binds it (here one
// held by the test) is replaced by a fresh one when Start picked it, and is an error
// naming the address, with no retry, when the caller gave it.
func TestStartRetriesTakenPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().String()
	for _, tc := range []struct {
		name      string
		client    string // Config.ClientAddr
		takenPick int    // how many picks hand out the taken port before free ones
		wantPicks int
		wantErr   bool
	}{
		{name: "picked client port taken", takenPick: 1, wantPicks: 4},
		{name: "picked ports taken twice", takenPick: 2, wantPicks: 4},
		{name: "given client port taken", client: taken, wantPicks: 1, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			picks := 0
			freeAddr = func() (string, error) {
				picks++
				if picks <= tc.takenPick {
					return taken, nil
				}
				return etcdkv.FreeLoopbackAddr()
			}
			defer func() { freeAddr = etcdkv.FreeLoopbackAddr }()
			s, err := Start(Config{Dir: t.TempDir(), ClientAddr: tc.client})
			if picks != tc.wantPicks {
				t.Errorf("%d ports picked, want %d", picks, tc.wantPicks)
			}
			if tc.wantErr {
				if err == nil {
					s.Close()
					t.Fatal("started on a port in use")
				}
				var op *net.OpError
				if !errors.Is(err, syscall.EADDRINUSE) || !errors.As(err, &op) || op.Addr.String() != taken {
					t.Fatalf("error %v, want EADDRINUSE on %s", err, taken)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Endpoint() == taken {
				t.Fatalf("serving on the taken port %s", taken)
			}
		})
	}
}
