package transport

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// errJoined marks that the registered opener ran, with the setup it was given.
type errJoined struct{ s Setup }

func (errJoined) Error() string { return "joined" }

func TestRegisterOpen(t *testing.T) {
	Register("transporttest-open", func(_ context.Context, s Setup) (Transport, error) {
		return nil, errJoined{s}
	})
	want := Setup{Launch: LaunchSeparate, Components: []string{"a", "b"}, Comp: 1, Namespace: "ns"}
	_, err := Open(context.Background(), "transporttest-open", want)
	var j errJoined
	if !errors.As(err, &j) || j.s.Launch != want.Launch || j.s.Comp != 1 || j.s.Namespace != "ns" {
		t.Fatalf("Open = %v, want the opener called with %+v", err, want)
	}
	for _, tc := range []struct {
		name, transport string
		s               Setup
		want            string
	}{
		{"unknown", "nosuch", want, `transport: "nosuch" is not linked into this program (linked: [`},
		{"bad component", "transporttest-open", Setup{Components: []string{"a"}, Comp: 1},
			"transport: component index 1 outside the 1 components [a]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(context.Background(), tc.transport, tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestRegisterPanics(t *testing.T) {
	Register("transporttest-dup", func(context.Context, Setup) (Transport, error) { return nil, nil })
	for _, tc := range []struct {
		name, transport, want string
		o                     Opener
	}{
		{"duplicate", "transporttest-dup", "transport: Register called twice for transporttest-dup",
			func(context.Context, Setup) (Transport, error) { return nil, nil }},
		{"nil", "transporttest-nil", "transport: Register opener is nil for transporttest-nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.want {
					t.Fatalf("panic = %v, want %q", r, tc.want)
				}
			}()
			Register(tc.transport, tc.o)
		})
	}
}
