package agent

import "testing"

func TestRequireTokenOffLoopback(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:0", "", true},
		{"[::1]:0", "", true},
		{"localhost:9000", "", true},
		{"0.0.0.0:0", "", false},
		{"10.1.2.3:7000", "", false},
		{"node12:7000", "", false},
		{"0.0.0.0:0", "t", true},
		{"nonsense", "t", false},
	} {
		err := requireTokenOffLoopback(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("requireTokenOffLoopback(%q, %q) = %v, want ok=%v", c.addr, c.token, err, c.ok)
		}
	}
}
