package bench

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDAMONMonitors reads kdamonds from a tree laid out as DAMON's sysfs admin
// directory: only those "on" count, one entry per context.
func TestDAMONMonitors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string // path under admin -> content
		want  []string
	}{
		{"no DAMON", nil, nil},
		{"off", map[string]string{"kdamonds/0/state": "off\n", "kdamonds/0/contexts/0/operations": "paddr\n"}, nil},
		{"on, reclaiming", map[string]string{
			"kdamonds/0/state":                                           "on\n",
			"kdamonds/0/contexts/0/operations":                           "paddr\n",
			"kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us": "500000\n",
			"kdamonds/0/contexts/0/schemes/0/action":                     "pageout\n",
		}, []string{"paddr, sampling every 500ms, pageout"}},
		{"one of two on, no scheme", map[string]string{
			"kdamonds/0/state":                                           "off\n",
			"kdamonds/0/contexts/0/operations":                           "vaddr\n",
			"kdamonds/1/state":                                           "on\n",
			"kdamonds/1/contexts/0/operations":                           "vaddr\n",
			"kdamonds/1/contexts/0/monitoring_attrs/intervals/sample_us": "5000\n",
		}, []string{"vaddr, sampling every 5ms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := damonMonitors(fakeTree(t, c.files)); !slices.Equal(got, c.want) {
				t.Fatalf("damonMonitors = %q, want %q", got, c.want)
			}
		})
	}
}

// TestPauseDAMON turns the running kdamonds of a fake sysfs tree off, leaves the others
// alone, and turns only the paused ones back on, once however often resume is called.
func TestPauseDAMON(t *testing.T) {
	admin := fakeTree(t, map[string]string{"kdamonds/0/state": "on\n", "kdamonds/1/state": "off\n", "kdamonds/2/state": "on\n"})
	check := func(when string, want map[string]string) {
		t.Helper()
		for kd, st := range want {
			if got := readTrim(filepath.Join(admin, "kdamonds", kd, "state")); got != st {
				t.Errorf("%s: kdamond %s is %q, want %q", when, kd, got, st)
			}
		}
	}
	resume, err := pauseDAMON(admin)
	if err != nil {
		t.Fatal(err)
	}
	check("paused", map[string]string{"0": "off", "1": "off", "2": "off"})
	// Another tool turning kdamond 1 on meanwhile is not undone, nor redone.
	os.WriteFile(filepath.Join(admin, "kdamonds", "1", "state"), []byte("on"), 0o644)
	for range 2 {
		if err := resume(); err != nil {
			t.Fatal(err)
		}
	}
	check("resumed", map[string]string{"0": "on", "1": "on", "2": "on"})
	os.WriteFile(filepath.Join(admin, "kdamonds", "0", "state"), []byte("off"), 0o644)
	if err := resume(); err != nil {
		t.Fatal(err)
	}
	check("resumed again", map[string]string{"0": "off"})
}

// fakeTree writes files (path under the root -> content) into a fresh directory, laid
// out as a sysfs tree, and returns its root.
func fakeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, v := range files {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
