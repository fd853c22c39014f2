package config

import (
	"encoding/json"
	"testing"
)

// TestPatternMatchDTF checks the default rule against what the original DTF matched.
func TestPatternMatchDTF(t *testing.T) {
	tests := []struct {
		pat, path string
		want      bool
	}{
		{"pressure_wave_test", "/scratch/run/pressure_wave_test.nc", true}, // DTF's own example
		{"pressure_wave_test", "pressure_wave_test", true},
		{"pressure_wave_test", "wave_test", true},                 // the pattern contains the path
		{"pressure_wave_test", "/x/pressure_wave.nc", false},      // neither contains the other
		{"pressure_wave_test", "/x/Pressure_wave_test.nc", false}, // case kept
		{"out/%.nc", "/tmp/layout/a.nc", true},                    // not anchored at the start
		{"out/%.nc", "out/a.nc.bak", true},                        // nor at the end
		{"out/%.nc", "out/a.txt", false},                          // every piece must appear
		{"out/%.nc", "a.nc/out/", false},                          // in order
		{"DATA_PATH/%/%.anal.nc", "/s/DATA_PATH/0001/mean.anal.nc", true},
		{"DATA_PATH/%/%.anal.nc", "/s/DATA_PATH/0001/mean.hist.nc", false},
		{"%.anal%.nc", "/t/m1.anal.0001.nc", true},
		{"%", "x", true},
		{"a%a", "a", false}, // both literals need their own character
		{"a%a", "aa", true},
		{"a.nc", "./x//a.nc", true}, // paths are cleaned
		{"x%", "", false},
	}
	for _, tt := range tests {
		p, err := CompilePattern(tt.pat)
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", tt.pat, err)
		}
		if p.Anchored() {
			t.Errorf("CompilePattern(%q) is anchored", tt.pat)
		}
		if got := p.Match(tt.path); got != tt.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tt.pat, tt.path, got, tt.want)
		}
	}
}

// TestPatternMatchAnchored checks the opt-in anchored rule.
func TestPatternMatchAnchored(t *testing.T) {
	tests := []struct {
		pat, path string
		want      bool
	}{
		{"out/%.nc", "out/a.nc", true},
		{"out/%.nc", "/tmp/run1/out/a.nc", true},
		{"out/%.nc", "run1/out/a.nc", true},
		{"out/%.nc", "/tmp/layout/a.nc", false}, // suffix not at a component boundary
		{"out/%.nc", "out/a.nc.bak", false},     // anchored at the end
		{"out/%.nc", "out/.nc", true},           // % may be empty
		{"out/%.nc", "out/sub/a.nc", true},      // % may span '/'
		{"out/%.nc", "./out//a.nc", true},       // paths are cleaned
		{"DATA_PATH/%/%.anal.nc", "/scratch/DATA_PATH/0001/mean.anal.nc", true},
		{"DATA_PATH/%/%.anal.nc", "/scratch/data_path/0001/mean.anal.nc", false}, // case kept
		{"DATA_PATH/%/%.anal.nc", "/scratch/DATA_PATH/0001/mean.hist.nc", false},
		{"/abs/%.nc", "/abs/x.nc", true},
		{"/abs/%.nc", "/other/abs/x.nc", false}, // absolute patterns match whole paths only
		{"a.nc", "a.nc", true},
		{"a.nc", "dir/a.nc", true},
		{"a.nc", "ba.nc", false},
		{"a.nc", "a.nc/x", false},
		{"%restart%", "/x/my_restart_01.nc", true}, // the original's substring match, spelled out
		{"%", "anything/at/all", true},
		{"a%b%c", "abc", true},
		{"a%b%c", "axxbyyc", true},
		{"a%b%c", "axxcyyb", false},
		{"a%a", "a", false}, // both literals need their own character
		{"a%a", "aa", true},
		{"x%", "", false},
	}
	for _, tt := range tests {
		p, err := CompileAnchoredPattern(tt.pat)
		if err != nil || !p.Anchored() {
			t.Fatalf("CompileAnchoredPattern(%q): %v", tt.pat, err)
		}
		if got := p.Match(tt.path); got != tt.want {
			t.Errorf("anchored %q.Match(%q) = %v, want %v", tt.pat, tt.path, got, tt.want)
		}
	}
}

func TestCompilePatternErrors(t *testing.T) {
	for _, s := range []string{"", "  ", "a\x00b"} {
		if _, err := CompilePattern(s); err == nil {
			t.Errorf("CompilePattern(%q) succeeded, want error", s)
		}
		if _, err := CompileAnchoredPattern(s); err == nil {
			t.Errorf("CompileAnchoredPattern(%q) succeeded, want error", s)
		}
	}
	var zero Pattern
	if zero.Match("x") {
		t.Error("zero Pattern matched")
	}
}

func TestPatternJSON(t *testing.T) {
	p, err := CompilePattern("Out/%.nc")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct{ F Pattern }{p})
	if err != nil || string(b) != `{"F":"Out/%.nc"}` {
		t.Errorf("json = %s, %v", b, err)
	}
}
