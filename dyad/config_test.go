package dyad

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestConfigFromEnv(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		check   func(Config) bool
		wantErr string
	}{
		{"defaults", map[string]string{"DYAD_KVS_NAMESPACE": "ns"},
			func(c Config) bool {
				return c.KeyDepth == 3 && c.KeyBins == 1024 && c.DTL == "" && !c.SharedStorage && c.Timeout == time.Minute
			}, ""},
		// The original's defect: presence alone turned booleans on.
		{"boolean by value", map[string]string{"DYAD_KVS_NAMESPACE": "ns", "DYAD_SHARED_STORAGE": "0", "DYAD_FSYNC_WRITE": "yes"},
			func(c Config) bool { return !c.SharedStorage && c.FsyncWrite }, ""},
		{"dirs and key", map[string]string{"DYAD_KVS_NAMESPACE": "ns", "DYAD_PATH_PRODUCER": "/p", "DYAD_PATH_CONSUMER": "/c",
			"DYAD_KEY_DEPTH": "2", "DYAD_KEY_BINS": "256", "DYAD_DTL_MODE": "FLUX_RPC", "COUPLET_DYAD_TIMEOUT": "2s"},
			func(c Config) bool {
				return c.DTL == DTLRPC && c.ProducerDir == "/p" && c.ConsumerDir == "/c" && c.KeyDepth == 2 && c.KeyBins == 256 && c.Timeout == 2*time.Second
			}, ""},
		{"missing namespace", map[string]string{}, nil, "DYAD_KVS_NAMESPACE is required"},
		{"bad boolean", map[string]string{"DYAD_KVS_NAMESPACE": "ns", "DYAD_SYNC_CHECK": "maybe"}, nil, "not a boolean"},
		{"bad bins", map[string]string{"DYAD_KVS_NAMESPACE": "ns", "DYAD_KEY_BINS": "0"}, nil, "DYAD_KEY_BINS"},
		{"margo", map[string]string{"DYAD_KVS_NAMESPACE": "ns", "DYAD_DTL_MODE": "MARGO"}, nil, "not available on this platform"},
		{"ucx", map[string]string{"DYAD_KVS_NAMESPACE": "ns", "DYAD_DTL_MODE": "UCX"}, func(c Config) bool { return c.DTL == DTLUCX }, ""},
	} {
		cfg, err := ConfigFrom(env(c.env))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || !c.check(cfg) {
			t.Errorf("%s: cfg = %+v, err = %v", c.name, cfg, err)
		}
	}
}
