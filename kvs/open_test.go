package kvs

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// errOpened marks that the registered opener ran, with the URL it was given.
type errOpened struct{ host string }

func (e errOpened) Error() string { return "opened " + e.host }

func TestRegisterOpen(t *testing.T) {
	Register("kvstest-open", func(_ context.Context, u *url.URL) (KV, error) {
		return nil, errOpened{u.Host}
	})
	_, err := Open(context.Background(), "kvstest-open://h1:1,h2:2")
	var o errOpened
	if !errors.As(err, &o) || o.host != "h1:1,h2:2" {
		t.Fatalf("Open through the registered scheme = %v, want the opener's errOpened{h1:1,h2:2}", err)
	}
	_, err = Open(context.Background(), "nosuch://x")
	if err == nil || !strings.Contains(err.Error(), `unknown store scheme "nosuch"`) || !strings.Contains(err.Error(), "kvstest-open") {
		t.Fatalf("Open of an unknown scheme = %v, want an error naming it and the known ones", err)
	}
}

func TestRegisterPanics(t *testing.T) {
	Register("kvstest-dup", func(context.Context, *url.URL) (KV, error) { return nil, nil })
	for _, tc := range []struct {
		name, scheme, want string
		o                  Opener
	}{
		{"duplicate", "kvstest-dup", "kvs: Register called twice for scheme kvstest-dup",
			func(context.Context, *url.URL) (KV, error) { return nil, nil }},
		{"nil", "kvstest-nil", "kvs: Register opener is nil for scheme kvstest-nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.want {
					t.Fatalf("panic = %v, want %q", r, tc.want)
				}
			}()
			Register(tc.scheme, tc.o)
		})
	}
}
