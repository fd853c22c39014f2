package ucxtransport

import (
	"maps"
	"testing"
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
