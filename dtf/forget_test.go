package dtf

import "testing"

// TestForgetKeepsOpenSession checks that FORGET drops a session's parked
// messages only on ranks that are not in that session: a reader whose
// closing-round replies arrive in the same poll as the writer's FORGET
// must still find them.
func TestForgetKeepsOpenSession(t *testing.T) {
	for _, tc := range []struct {
		name string
		open bool
		want int // parked messages left
	}{
		{"session open", true, 2},
		{"never opened", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &engine{files: map[string]*File{}}
			if tc.open {
				e.files["a.nc"] = &File{e: e, path: "a.nc", session: 1}
			}
			e.mail = []*envelope{
				{Kind: kExpect, Path: "a.nc", Session: 1, Round: 1},
				{Kind: kHeader, Path: "a.nc", Session: 1},
			}
			if err := e.dispatch(&envelope{Kind: kForget, Path: "a.nc", Session: 1}); err != nil {
				t.Fatal(err)
			}
			if len(e.mail) != tc.want {
				t.Errorf("%d messages parked after FORGET, want %d", len(e.mail), tc.want)
			}
		})
	}
}
