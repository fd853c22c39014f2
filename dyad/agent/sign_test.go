package agent

import (
	"errors"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// TestModeIsSigned checks that a record whose mode was changed after signing fails
// verification, and that the untouched record passes.
func TestModeIsSigned(t *testing.T) {
	a := &Agent{signKey: signingKey("token")}
	m := &wire.Meta{Key: "k", Path: "p", Size: 1, Version: 1, Mode: 0o644, Hash: make([]byte, contentHashSize)}
	a.sign(m)
	if err := a.verify(m); err != nil {
		t.Fatalf("signed record: %v", err)
	}
	for _, mode := range []uint32{0o600, 0o755, 0o4755, 0} {
		c := *m
		c.Mode = mode
		if err := a.verify(&c); !errors.Is(err, ErrBadSignature) {
			t.Errorf("mode %o after signing: err = %v, want ErrBadSignature", mode, err)
		}
	}
}
