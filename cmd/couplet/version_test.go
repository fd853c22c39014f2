package main

import (
	"strings"
	"testing"
)

func TestVersionFlag(t *testing.T) {
	out, _, err := runCouplet(t, "--version")
	if err != nil || !strings.HasPrefix(out, "couplet version ") || len(strings.TrimSpace(out)) <= len("couplet version") {
		t.Fatalf("couplet --version: %q %v", out, err)
	}
}
