package agent

import "testing"

func TestRequireTokenOffLoopback(t *testing.T) {
	for _, c := range []struct {
		addr     string
		explicit bool
		ok       bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:0", false, true},
		{"localhost:9000", false, true},
		{"0.0.0.0:0", false, false},
		{"10.1.2.3:7000", false, false},
		{"node12:7000", false, false},
		{"0.0.0.0:0", true, true},
		{"nonsense", true, false},
	} {
		err := requireTokenOffLoopback(c.addr, c.explicit)
		if (err == nil) != c.ok {
			t.Errorf("requireTokenOffLoopback(%q, %v) = %v, want ok=%v", c.addr, c.explicit, err, c.ok)
		}
	}
}
