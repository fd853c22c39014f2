package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCouplet runs the couplet command tree in-process, as main would, and returns
// its output streams and error (a non-nil error is exit status 1 in main).
func runCouplet(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	configCheckEnv, statsPlotDir, configCheckOpened = false, "", nil // flag values persist between runs
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	defer func() {
		root.SetOut(nil)
		root.SetErr(nil)
		root.SetArgs(nil)
	}()
	err = root.Execute()
	return out.String(), errb.String(), err
}

func TestConfigCheck(t *testing.T) {
	good := filepath.Join("..", "..", "dtf", "config", "testdata", "good.ini")
	bad := filepath.Join("..", "..", "dtf", "config", "testdata", "bad.ini")
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr bool
		out     []string // substrings of stdout
		errOut  []string // substrings of stderr
	}{
		{name: "good", args: []string{"config", "check", good},
			out: []string{"OK: " + good, "components: v_scale, v_letkf", "[FILE] line 20: DATA_PATH/%/%.anal.nc (substring)  v_scale -> v_letkf  mode transfer  sessions 2  replay on",
				"exclude %/init/%, %.bak.nc", "[FILE] line 36: restart/%.nc (substring)  v_letkf -> v_scale  mode file",
				"note: " + good + ":10: do_checksum = 0: accepted for DTF compatibility, has no effect here",
				"note: " + good + ":41: write_only = 1: accepted for DTF compatibility, has no effect here"}},
		{name: "good with env", args: []string{"config", "check", "--env", good}, env: map[string]string{"COUPLET_MODE": "file"},
			out: []string{"environment: COUPLET_MODE=file", "[FILE] line 20: DATA_PATH/%/%.anal.nc (substring)  v_scale -> v_letkf  mode file"}},
		{name: "no-effect env", args: []string{"config", "check", "--env", good},
			env: map[string]string{"DTF_VERBOSE_LEVEL": "-1", "DTF_USE_MSG_BUFFER": "1", "DTF_DATA_MSG_SIZE_LIMIT": "128"},
			out: []string{"verbose -1", "note: environment: DTF_DATA_MSG_SIZE_LIMIT=128: accepted for DTF compatibility, has no effect here",
				"note: environment: DTF_USE_MSG_BUFFER=1: accepted for DTF compatibility, has no effect here"}},
		{name: "opened", args: []string{"config", "check", good, "--opened", "/s/DATA_PATH/01/m.anal.nc", "--opened", "/s/other.nc"},
			out: []string{"/s/DATA_PATH/01/m.anal.nc -> [FILE] line 20", "/s/other.nc -> not coupled"},
			errOut: []string{"warning: " + good + `:30: [FILE] filename "DATA_PATH/%/%.hist.nc" matched no file`,
				"warning: " + good + `:36: [FILE] filename "restart/%.nc" matched no file`}},
		{name: "env ignored without --env", args: []string{"config", "check", good}, env: map[string]string{"COUPLET_MODE": "bogus"},
			out: []string{"OK: "}},
		{name: "bad env", args: []string{"config", "check", "--env", good}, env: map[string]string{"DTF_TIMEOUT": "soon"}, wantErr: true,
			errOut: []string{"environment: DTF_TIMEOUT: want seconds"}},
		{name: "bad", args: []string{"config", "check", bad}, wantErr: true,
			errOut: []string{bad + `:2: key "ncomp": is 3 but [INFO] has 2 comp_name line(s)`, bad + `:5: key "buffer_data"`,
				bad + `:9: key "colour": unknown key`, bad + `:14: key "comp2"`, bad + `:20: key "comp2": same component`}},
		{name: "missing", args: []string{"config", "check", "no-such.ini"}, wantErr: true, errOut: []string{"no-such.ini"}},
		{name: "no arg", args: []string{"config", "check"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			out, errOut, err := runCouplet(t, tt.args...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v\nstdout:\n%s\nstderr:\n%s", err, tt.wantErr, out, errOut)
			}
			for _, s := range tt.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.errOut {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

func TestConfigCheckCountsEveryError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.ini")
	text := "[INFO]\nncomp = 2\ncomp_name = a\ncomp_name = b\nbuffer_data = 7\n[FILE]\nfilename = x.nc\ncomp1 = a\ncomp2 = c\nmode = both\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := runCouplet(t, "config", "check", path)
	if err == nil || !strings.Contains(err.Error(), "3 problem(s)") {
		t.Fatalf("err = %v", err)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	want := []string{path + ":5:", path + ":9:", path + ":10:"}
	if len(lines) != len(want) {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(want), errOut)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}
