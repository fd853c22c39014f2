package ucxtransport

import (
	"maps"
	"testing"

	"github.com/couplet-hpc/couplet/ucx"
)

// TestRndvDefaults: the rendezvous scheme defaults to put_zcopy unless the
// environment sets one.
func TestRndvDefaults(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"unset", nil, map[string]string{"RNDV_SCHEME": "put_zcopy"}},
		{"set", map[string]string{"UCX_RNDV_SCHEME": "get_zcopy"}, map[string]string{}},
		{"set empty", map[string]string{"UCX_RNDV_SCHEME": ""}, map[string]string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := rndvDefaults(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if !maps.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestTCPOnly: peer failure handling and receiving into rows (which check
// turns on by tcpOnly) are the defaults exactly when UCX_TLS names tcp alone.
func TestTCPOnly(t *testing.T) {
	for _, c := range []struct {
		tls  string
		want bool
	}{{"", false}, {"tcp", true}, {" tcp , tcp", true}, {"sm", false}, {"tcp,sm", false}, {"rc,tcp", false}} {
		if got, mode := tcpOnly(c.tls), defaultUCX(c.tls).ErrMode; got != c.want || (mode == ucx.ErrModePeer) != c.want {
			t.Errorf("UCX_TLS=%q: tcpOnly %v, error mode %v; want both %v", c.tls, got, mode, c.want)
		}
	}
}
