package bench

import (
	"path/filepath"
	"testing"
)

// TestDeferPageReporting has free page reporting of a fake parameters directory wait
// reportAfter where it reported sooner, and restores the setting once.
func TestDeferPageReporting(t *testing.T) {
	for _, c := range []struct {
		name       string
		files      map[string]string
		change     string
		during     string // min_free_ms during the measurements ("" when absent)
		afterwards string
	}{
		{"no such setting", map[string]string{"page_reporting_order": "9\n"}, "", "", ""},
		{"at once", map[string]string{"min_free_ms": "0\n"}, "min_free_ms 0 -> 60000", "60000", "0"},
		{"sooner", map[string]string{"min_free_ms": "2000\n"}, "min_free_ms 2000 -> 60000", "60000", "2000"},
		{"later already", map[string]string{"min_free_ms": "120000\n"}, "", "120000", "120000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			params := fakeTree(t, c.files)
			path := filepath.Join(params, "min_free_ms")
			restore, change, err := deferPageReporting(params)
			if err != nil || change != c.change {
				t.Fatalf("deferPageReporting = %q, %v, want %q", change, err, c.change)
			}
			if got := readTrim(path); got != c.during {
				t.Errorf("min_free_ms during = %q, want %q", got, c.during)
			}
			for range 2 {
				if err := restore(); err != nil {
					t.Fatal(err)
				}
			}
			if got := readTrim(path); got != c.afterwards {
				t.Errorf("min_free_ms afterwards = %q, want %q", got, c.afterwards)
			}
		})
	}
}
