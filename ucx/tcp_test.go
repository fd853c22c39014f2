package ucx

import (
	"maps"
	"testing"
)

// allTCP is every tcp setting at its default, with the exchange's send
// buffer.
var allTCP = map[string]string{"TCP_SNDBUF": "384K", "TCP_RCVBUF": "4M", "TCP_TX_SEG_SIZE": "64K", "TCP_RX_SEG_SIZE": "256K"}

// TestTCPDefaults: with tcp in UCX_TLS the tcp socket buffers and segment
// sizes get their defaults, the send buffer the one asked for, and a setting
// in the environment wins; without tcp nothing is set (UCX would warn of
// unused settings).
func TestTCPDefaults(t *testing.T) {
	for _, c := range []struct {
		name string
		tls  string
		send string // the send buffer asked for, SendBufferExchange if empty
		env  map[string]string
		want map[string]string
	}{
		{"unset", "tcp", "", nil, allTCP},
		{"stream", "tcp", SendBufferStream, nil,
			map[string]string{"TCP_SNDBUF": "4M", "TCP_RCVBUF": "4M", "TCP_TX_SEG_SIZE": "64K", "TCP_RX_SEG_SIZE": "256K"}},
		{"tcp among others", "self, tcp", "", nil, allTCP},
		{"send set", "tcp", SendBufferStream, map[string]string{"UCX_TCP_SNDBUF": "64K"},
			map[string]string{"TCP_RCVBUF": "4M", "TCP_TX_SEG_SIZE": "64K", "TCP_RX_SEG_SIZE": "256K"}},
		{"all set", "tcp", "", map[string]string{"UCX_TCP_SNDBUF": "auto", "UCX_TCP_RCVBUF": "1M", "UCX_TCP_TX_SEG_SIZE": "8K", "UCX_TCP_RX_SEG_SIZE": ""}, map[string]string{}},
		{"shared memory", "sm", "", nil, map[string]string{}},
		{"UCX_TLS unset", "", "", nil, map[string]string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			send := c.send
			if send == "" {
				send = SendBufferExchange
			}
			got := TCPDefaults(c.tls, send, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if !maps.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
