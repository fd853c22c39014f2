package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestLoadConfigGood(t *testing.T) {
	c, err := LoadConfig("testdata/good.ini")
	if err != nil {
		t.Fatal(err)
	}
	if c.NComp != 2 || strings.Join(c.CompNames, ",") != "v_scale,v_letkf" {
		t.Errorf("components: %d %v", c.NComp, c.CompNames)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"BufferData", c.BufferData, true},
		{"IODBBuildMode", c.IODBBuildMode, PartitionRange},
		{"IODBRange", c.IODBRange, int64(16)},
		{"DoChecksum", c.DoChecksum, false},
		{"NumMatchers", c.NumMatchers, 2},
		{"Timeout", c.Timeout, 90 * time.Second},
		{"Unwritten", c.Unwritten, UnwrittenFill},
		{"StatsPath", c.StatsPath, "/tmp/Couplet Stats.jsonl"},
		{"Transport", c.Transport, TransportMPI},
		{"ProgressThread", c.ProgressThread, true},
		{"MaxWorkgroupSize", c.MaxWorkgroupSize, DefaultMaxWorkgroupSize},
		{"DataMsgSizeLimit", c.DataMsgSizeLimit, int64(DefaultDataMsgSizeLimit)},
		{"len(Files)", len(c.Files), 3},
		{"f0.Filename", c.Files[0].Filename.String(), "DATA_PATH/%/%.anal.nc"},
		{"f0.Exclude", len(c.Files[0].Exclude), 2},
		{"f0.NumSessions", c.Files[0].NumSessions, 2},
		{"f0.ReplayIO", c.Files[0].ReplayIO, true},
		{"f0.Line", c.Files[0].Line, 20},
		{"f1.Filename", c.Files[1].Filename.String(), "DATA_PATH/%/%.hist.nc"},
		{"f1.Mode", c.Files[1].Mode, ModeTransfer},
		{"f1.NumSessions", c.Files[1].NumSessions, 1},
		{"f1.Index", c.Files[1].Index, 1},
		{"f2.Mode", c.Files[2].Mode, ModeFile},
		{"f2.WriteOnly", c.Files[2].WriteOnly, true},
		{"f2.Comp1", c.Files[2].Comp1, "v_letkf"},
		{"CompIndex(v_letkf)", c.CompIndex("v_letkf"), 1},
		{"CompIndex(V_LETKF)", c.CompIndex("V_LETKF"), -1},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig("min.ini", []byte("[INFO]\nncomp=2\ncomp_name=a\ncomp_name=b\n[FILE]\nfilename=x.nc\ncomp1=a\ncomp2=b\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Files[0]
	if c.BufferData || c.IODBBuildMode != PartitionRange || c.IODBRange != 0 || c.NumMatchers != 0 ||
		c.Timeout != DefaultTimeout || c.Unwritten != UnwrittenError || c.StatsPath != "" ||
		c.Transport != TransportMPI || !c.ProgressThread || c.KVS != nil {
		t.Errorf("INFO defaults wrong: %+v", c)
	}
	if f.Mode != ModeTransfer || f.ReplayIO || f.NumSessions != 1 || f.WriteOnly || f.MirrorIORoot {
		t.Errorf("FILE defaults wrong: %+v", f)
	}
}

// goodINFO and goodFILE build valid configs; a test case replaces or adds lines.
const goodINFO = "[INFO]\nncomp = 2\ncomp_name = sim\ncomp_name = ana\n"
const goodFILE = "[FILE]\nfilename = out/%.nc\ncomp1 = sim\ncomp2 = ana\n"

// TestConfigErrors feeds configs with one problem each. The line with the problem is
// marked by a trailing "# BAD" comment (or "; BAD"), or named by line when the problem
// is on a section header.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		key  string // key named in the error, "" for none
		msg  string // substring of the message
		line int    // expected line; 0 = the line marked BAD
	}{
		{"ncomp not int", "[INFO]\nncomp = two # BAD\ncomp_name = sim\ncomp_name = ana\n" + goodFILE, "ncomp", "want an integer", 0},
		{"ncomp zero", "[INFO]\nncomp = 0 # BAD\ncomp_name = sim\ncomp_name = ana\n" + goodFILE, "ncomp", ">= 1", 0},
		{"ncomp count", "[INFO]\nncomp = 3 # BAD\ncomp_name = sim\ncomp_name = ana\n" + goodFILE, "ncomp", "2 comp_name", 0},
		{"ncomp twice", goodINFO + "ncomp = 2 # BAD\n" + goodFILE, "ncomp", "repeated (first set at line 2)", 0},
		{"ncomp missing", "[INFO]\ncomp_name = sim\ncomp_name = ana\n" + goodFILE, "ncomp", "required", 1},
		{"comp_name missing", "[INFO]\nncomp = 2\n" + goodFILE, "comp_name", "required", 1},
		{"comp_name empty", "[INFO]\nncomp = 2\ncomp_name = sim\ncomp_name = \"\" # BAD\n" + goodFILE, "comp_name", "empty", 0},
		{"comp_name twice", "[INFO]\nncomp = 2\ncomp_name = sim\ncomp_name = sim # BAD\n" + goodFILE, "comp_name", "declared twice", 0},
		{"comp_name space", "[INFO]\nncomp = 2\ncomp_name = sim\ncomp_name = \"a b\" # BAD\n" + goodFILE, "comp_name", "space", 0},
		{"buffer_data", goodINFO + "buffer_data = 2 # BAD\n" + goodFILE, "buffer_data", "want 0 or 1", 0},
		{"iodb_build_mode", goodINFO + "iodb_build_mode = rows # BAD\n" + goodFILE, "iodb_build_mode", "want range or varid", 0},
		{"iodb_range neg", goodINFO + "iodb_range = -1 # BAD\n" + goodFILE, "iodb_range", ">= 0", 0},
		{"iodb_range float", goodINFO + "iodb_range = 1e3 # BAD\n" + goodFILE, "iodb_range", "want an integer", 0},
		{"do_checksum", goodINFO + "do_checksum = maybe # BAD\n" + goodFILE, "do_checksum", "want 0 or 1", 0},
		{"log_ioreqs", goodINFO + "log_ioreqs = 5 # BAD\n" + goodFILE, "log_ioreqs", "want 0 or 1", 0},
		{"num_matchers", goodINFO + "num_matchers = -2 # BAD\n" + goodFILE, "num_matchers", ">= 0", 0},
		{"timeout word", goodINFO + "timeout = soon # BAD\n" + goodFILE, "timeout", "want seconds or a duration", 0},
		{"timeout zero", goodINFO + "timeout = 0 # BAD\n" + goodFILE, "timeout", "positive", 0},
		{"timeout negative", goodINFO + "timeout = -5s # BAD\n" + goodFILE, "timeout", "positive", 0},
		{"unwritten", goodINFO + "unwritten = zero # BAD\n" + goodFILE, "unwritten", "want error or fill", 0},
		{"transport", goodINFO + "transport = tcp # BAD\n" + goodFILE, "transport", "want mpi or ucx", 0},
		{"launch", goodINFO + "launch = mpiexec # BAD\n" + goodFILE, "launch", "want mpmd or separate", 0},
		{"launch separate over mpi", goodINFO + "transport = mpi\nlaunch = separate # BAD\n" + goodFILE, "launch", "separate launches share no MPI world: set transport = ucx", 0},
		{"kvs", goodINFO + "kvs = \"a:1,,b:2\" # BAD\n" + goodFILE, "kvs", "endpoint list", 0},
		{"progress_thread", goodINFO + "progress_thread = y # BAD\n" + goodFILE, "progress_thread", "want 0 or 1", 0},
		{"unknown INFO key", goodINFO + "colour = blue # BAD\n" + goodFILE, "colour", "unknown key in [INFO]", 0},
		{"unknown FILE key", goodINFO + goodFILE + "size = 3 # BAD\n", "size", "unknown key in [FILE]", 0},
		{"unknown section", goodINFO + goodFILE + "[OUTPUT]\n", "", "unknown section [OUTPUT]", 9},
		{"second INFO", goodINFO + goodFILE + "[INFO]\n", "", "second [INFO]", 9},
		{"INFO not first", goodFILE + goodINFO, "", "[INFO] must be the first section", 1},
		{"no FILE", goodINFO, "", "no [FILE] section", 1},
		{"empty file", "# nothing\n", "", "no sections", 0},
		{"key outside section", "ncomp = 2 # BAD\n" + goodINFO + goodFILE, "ncomp", "outside any section", 0},
		{"no equals", goodINFO + "ncomp 2\n" + goodFILE, "", "expected key = value", 5},
		{"bad key name", goodINFO + "comp-name = x\n" + goodFILE, "", "bad key name", 5},
		{"unclosed header", goodINFO + "[FILE\n", "", "unclosed section header", 5},
		{"junk after header", goodINFO + "[FILE] x\n", "", "unexpected text", 5},
		{"unterminated quote", goodINFO + goodFILE + "exclude_name = \"abc\n", "exclude_name", "unterminated", 9},
		{"text after quote", goodINFO + goodFILE + "exclude_name = \"abc\" def\n", "exclude_name", "after quoted value", 9},
		{"comment in single quotes", goodINFO + goodFILE + "exclude_name = 'a #b'\n", "exclude_name", "use double quotes", 9},
		{"filename empty", goodINFO + "[FILE]\nfilename = \"\" # BAD\ncomp1 = sim\ncomp2 = ana\n", "filename", "empty pattern", 0},
		{"filename missing", goodINFO + "[FILE]\ncomp1 = sim\ncomp2 = ana\n", "filename", "required in [FILE]", 5},
		{"filename twice", goodINFO + goodFILE + "filename = b.nc # BAD\n", "filename", "repeated", 0},
		{"filename reused", goodINFO + goodFILE + "[FILE]\nfilename = out/%.nc # BAD\ncomp1 = sim\ncomp2 = ana\n", "filename", "already used by the [FILE] section at line 5", 0},
		{"exclude_name empty", goodINFO + goodFILE + "exclude_name = # BAD\n", "exclude_name", "empty pattern", 0},
		{"comp1 missing", goodINFO + "[FILE]\nfilename = a.nc\ncomp2 = ana\n", "comp1", "required", 5},
		{"comp2 missing", goodINFO + "[FILE]\nfilename = a.nc\ncomp1 = sim\n", "comp2", "required", 5},
		{"comp1 undeclared", goodINFO + "[FILE]\nfilename = a.nc\ncomp1 = nobody # BAD\ncomp2 = ana\n", "comp1", "not declared", 0},
		{"comp2 case", goodINFO + "[FILE]\nfilename = a.nc\ncomp1 = sim\ncomp2 = ANA # BAD\n", "comp2", `did you mean "ana"`, 0},
		{"comp2 same", goodINFO + "[FILE]\nfilename = a.nc\ncomp1 = sim\ncomp2 = sim # BAD\n", "comp2", "same component", 0},
		{"mode", goodINFO + goodFILE + "mode = copy # BAD\n", "mode", "want transfer or file", 0},
		{"replay_io", goodINFO + goodFILE + "replay_io = 2 # BAD\n", "replay_io", "want 0 or 1", 0},
		{"num_sessions zero", goodINFO + goodFILE + "num_sessions = 0 # BAD\n", "num_sessions", ">= 1", 0},
		{"num_sessions word", goodINFO + goodFILE + "num_sessions = many ; BAD\n", "num_sessions", "want an integer", 0},
		{"write_only value", goodINFO + goodFILE + "mode = file\nwrite_only = 3 # BAD\n", "write_only", "want 0 or 1", 0},
		{"write_only transfer", goodINFO + goodFILE + "write_only = 1 # BAD\n", "write_only", "mode = file", 0},
		{"mirror_io_root", goodINFO + goodFILE + "mirror_io_root = -1 # BAD\n", "mirror_io_root", "want 0 or 1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.line
			if want == 0 {
				for i, l := range strings.Split(tt.text, "\n") {
					if strings.HasSuffix(l, "BAD") {
						want = i + 1
					}
				}
			}
			_, err := ParseConfig("t.ini", []byte(tt.text))
			if err == nil {
				t.Fatalf("no error for:\n%s", tt.text)
			}
			var found bool
			for _, e := range configErrors(err) {
				if e.Line == want && e.Key == tt.key && strings.Contains(e.Msg, tt.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("want an error at line %d, key %q, containing %q; got:\n%v", want, tt.key, tt.msg, err)
			}
			prefix := "t.ini:"
			if want > 0 {
				prefix = fmt.Sprintf("t.ini:%d: ", want)
			}
			if tt.key != "" {
				prefix += fmt.Sprintf("key %q: ", tt.key)
			}
			if !strings.Contains(err.Error(), prefix) {
				t.Errorf("message lacks %q: %v", prefix, err)
			}
		})
	}
}

// configErrors unpacks the joined *ConfigError values of a ParseConfig error.
func configErrors(err error) []*ConfigError {
	var out []*ConfigError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, configErrors(e)...)
		}
		return out
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		out = append(out, ce)
	}
	return out
}

func TestBadFixtureReportsEveryError(t *testing.T) {
	_, err := LoadConfig("testdata/bad.ini")
	if err == nil {
		t.Fatal("bad.ini parsed")
	}
	want := []struct {
		line int
		key  string
	}{
		{2, "ncomp"}, {5, "buffer_data"}, {6, "iodb_build_mode"}, {7, "timeout"}, {8, "unwritten"},
		{9, "colour"}, {14, "comp2"}, {15, "mode"}, {16, "num_sessions"}, {18, "filename"}, {20, "comp2"},
	}
	got := configErrors(err)
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d:\n%v", len(got), len(want), err)
	}
	for i := range min(len(got), len(want)) {
		if got[i].Line != want[i].line || got[i].Key != want[i].key || got[i].File != "testdata/bad.ini" {
			t.Errorf("error %d = %v, want line %d key %q", i, got[i], want[i].line, want[i].key)
		}
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	if _, err := LoadConfig("testdata/does-not-exist.ini"); err == nil || !strings.Contains(err.Error(), "does-not-exist.ini") {
		t.Errorf("err = %v", err)
	}
}

func TestConfigSyntax(t *testing.T) {
	text := "\xef\xbb\xbf  ! leading bang comment\r\n" +
		"[info] ; lower-case section\r\n" +
		"NCOMP = 2\r\n" +
		"Comp_Name = Sim\r\n" +
		"comp_name = 'Ana'\r\n" +
		"[File]\r\n" +
		"filename = \"Out Dir/%.NC\" # quoted: spaces and case kept\r\n" +
		"exclude_name = Out Dir/tmp#1.NC\r\n" + // '#' without a space before it is data
		"exclude_name = \"Out Dir/x;y.NC\"\r\n" +
		"comp1 = Sim\r\n" +
		"comp2 = Ana\r\n" +
		"mode = FILE\r\n"
	c, err := ParseConfig("s.ini", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Files[0]
	if f.Filename.String() != "Out Dir/%.NC" || f.Exclude[0].String() != "Out Dir/tmp#1.NC" || f.Exclude[1].String() != "Out Dir/x;y.NC" {
		t.Errorf("patterns: %q %q %q", f.Filename, f.Exclude[0], f.Exclude[1])
	}
	if c.CompNames[0] != "Sim" || c.CompNames[1] != "Ana" || f.Mode != ModeFile {
		t.Errorf("names %v mode %v", c.CompNames, f.Mode)
	}
}

func TestFileFor(t *testing.T) {
	c, err := LoadConfig("testdata/good.ini")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		section int // -1: none
	}{
		{"/scratch/DATA_PATH/0001/mean.anal.nc", 0},
		{"/scratch/DATA_PATH/init/mean.anal.nc", -1}, // excluded by %/init/%
		{"/scratch/DATA_PATH/0001/mean.bak.nc", -1},
		{"DATA_PATH/0002/mdet.hist.nc", 1},
		{"/scratch/data_path/0001/mean.anal.nc", -1}, // case is kept
		{"/home/u/restart/r0.nc", 2},
		{"/home/u/prerestart/r0.nc", 2}, // DTF matches a substring of the path
	}
	for _, tt := range tests {
		f, ok := c.FileFor(tt.path)
		switch {
		case tt.section < 0 && ok:
			t.Errorf("FileFor(%q) = section %d, want none", tt.path, f.Index)
		case tt.section >= 0 && (!ok || f.Index != tt.section):
			t.Errorf("FileFor(%q) = %v %v, want section %d", tt.path, f, ok, tt.section)
		}
	}
}

func TestMatcherCount(t *testing.T) {
	tests := []struct{ num, wg, ranks, want int }{
		{0, 64, 1, 1}, {0, 64, 64, 1}, {0, 64, 65, 2}, {0, 64, 200, 4},
		{0, 2, 5, 3}, {3, 64, 8, 3}, {10, 64, 4, 4}, {0, 0, 10, 1},
	}
	for _, tt := range tests {
		c := &Config{NumMatchers: tt.num, MaxWorkgroupSize: tt.wg}
		if got := c.MatcherCount(tt.ranks); got != tt.want {
			t.Errorf("MatcherCount(num=%d wg=%d, %d ranks) = %d, want %d", tt.num, tt.wg, tt.ranks, got, tt.want)
		}
	}
}

func TestApplyEnv(t *testing.T) {
	tests := []struct {
		env   map[string]string
		check func(c *Config) bool
	}{
		{map[string]string{"DTF_TIMEOUT": "7"}, func(c *Config) bool { return c.Timeout == 7*time.Second }},
		{map[string]string{"DTF_TIMEOUT": "1m30s"}, func(c *Config) bool { return c.Timeout == 90*time.Second }},
		{map[string]string{"MAX_WORKGROUP_SIZE": "4"}, func(c *Config) bool { return c.MaxWorkgroupSize == 4 }},
		{map[string]string{"DTF_VERBOSE_LEVEL": "3"}, func(c *Config) bool { return c.VerboseLevel == 3 }},
		{map[string]string{"DTF_VERBOSE_LEVEL": "-1"}, func(c *Config) bool { return c.VerboseLevel == -1 }}, // dtf-bench's scripts set it
		{map[string]string{"DTF_PRINT_STATS": "1"}, func(c *Config) bool { return c.PrintStats }},
		{map[string]string{"DTF_DATA_MSG_SIZE_LIMIT": "1024"}, func(c *Config) bool { return c.DataMsgSizeLimit == 1<<20 }},
		{map[string]string{"DTF_VAR_BLOCK_RANGE": "8"}, func(c *Config) bool { return c.IODBRange == 8 }},
		{map[string]string{"COUPLET_REPLAY_IO": "0"}, func(c *Config) bool { return !c.Files[0].ReplayIO && !c.Files[1].ReplayIO }},
		{map[string]string{"COUPLET_MODE": "file"}, func(c *Config) bool {
			return c.Files[0].Mode == ModeFile && c.Files[1].Mode == ModeFile && c.Files[2].Mode == ModeFile
		}},
		{map[string]string{"COUPLET_MODE": "Transfer"}, func(c *Config) bool { return c.Files[2].Mode == ModeTransfer }},
		{map[string]string{"COUPLET_STATS": "/tmp/s.jsonl"}, func(c *Config) bool { return c.StatsPath == "/tmp/s.jsonl" }},
		{map[string]string{"COUPLET_TRANSPORT": "ucx"}, func(c *Config) bool { return c.Transport == TransportUCX && c.Launched() == LaunchSeparate }},
		{map[string]string{"COUPLET_TRANSPORT": "ucx", "COUPLET_LAUNCH": "mpmd"}, func(c *Config) bool {
			return c.Transport == TransportUCX && c.Launched() == LaunchMPMD
		}},
		{map[string]string{"COUPLET_LAUNCH": "Separate"}, func(c *Config) bool { return c.Launch == LaunchSeparate }},
		{map[string]string{"DTF_TIMEOUT": ""}, func(c *Config) bool { return c.Timeout == 90*time.Second && len(c.EnvApplied) == 0 }},
	}
	for _, tt := range tests {
		c, err := LoadConfig("testdata/good.ini")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ApplyEnv(mapEnv(tt.env)); err != nil {
			t.Errorf("ApplyEnv(%v): %v", tt.env, err)
			continue
		}
		if !tt.check(c) {
			t.Errorf("ApplyEnv(%v) did not take effect", tt.env)
		}
	}
}

func TestApplyEnvErrors(t *testing.T) {
	tests := []struct{ name, value, msg string }{
		{"DTF_TIMEOUT", "never", "want seconds"},
		{"DTF_TIMEOUT", "-1", "positive"},
		{"MAX_WORKGROUP_SIZE", "0", ">= 1"},
		{"DTF_VERBOSE_LEVEL", "5", "-1..4"},
		{"DTF_VERBOSE_LEVEL", "-2", "-1..4"},
		{"DTF_PRINT_STATS", "sure", "want 0 or 1"},
		{"DTF_DATA_MSG_SIZE_LIMIT", "64M", "want an integer"},
		{"DTF_VAR_BLOCK_RANGE", "-3", ">= 0"},
		{"COUPLET_REPLAY_IO", "2", "want 0 or 1"},
		{"COUPLET_MODE", "copy", "want transfer or file"},
		{"COUPLET_TRANSPORT", "tcp", "want mpi or ucx"},
	}
	for _, tt := range tests {
		c, err := LoadConfig("testdata/good.ini")
		if err != nil {
			t.Fatal(err)
		}
		// A good variable next to the bad one must not be applied either.
		env := map[string]string{tt.name: tt.value, "COUPLET_STATS": "/elsewhere"}
		err = c.ApplyEnv(mapEnv(env))
		if err == nil {
			t.Errorf("%s=%s: no error", tt.name, tt.value)
			continue
		}
		want := "environment: " + tt.name + ": "
		if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s=%s: error %q, want prefix %q and %q", tt.name, tt.value, err, want, tt.msg)
		}
		if c.StatsPath != "/tmp/Couplet Stats.jsonl" {
			t.Errorf("%s=%s: config changed despite the error", tt.name, tt.value)
		}
	}
}

func TestConfigPathAndLoadConfigEnv(t *testing.T) {
	if got := ConfigPath("a.ini", mapEnv(nil)); got != "a.ini" {
		t.Errorf("ConfigPath = %q", got)
	}
	if got := ConfigPath("a.ini", mapEnv(map[string]string{"DTF_INI_FILE": "b.ini"})); got != "b.ini" {
		t.Errorf("ConfigPath = %q", got)
	}
	t.Setenv("DTF_INI_FILE", "testdata/good.ini")
	t.Setenv("COUPLET_MODE", "file")
	c, err := LoadConfigEnv("does-not-exist.ini")
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "testdata/good.ini" || c.Files[0].Mode != ModeFile || len(c.EnvApplied) != 1 {
		t.Errorf("LoadConfigEnv: path %q mode %v applied %v", c.Path, c.Files[0].Mode, c.EnvApplied)
	}
	t.Setenv("COUPLET_MODE", "bogus")
	if _, err := LoadConfigEnv("x.ini"); err == nil || !strings.Contains(err.Error(), "COUPLET_MODE") {
		t.Errorf("LoadConfigEnv with bad env: %v", err)
	}
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// FuzzParseConfig checks that any input gives a config or errors that each name a line
// of the input, and never panics.
func FuzzParseConfig(f *testing.F) {
	for _, name := range []string{"testdata/good.ini", "testdata/bad.ini"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(goodINFO + goodFILE + "exclude_name = \"a\\\"b\" ; c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("f.ini", data)
		if err == nil {
			if len(c.CompNames) != c.NComp || len(c.Files) == 0 {
				t.Fatalf("accepted an inconsistent config: %+v", c)
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, e := range configErrors(err) {
			if e.Line < 0 || e.Line > lines || e.File != "f.ini" {
				t.Fatalf("error outside the input (%d lines): %v", lines, e)
			}
		}
	})
}

func TestConfigAdditions(t *testing.T) {
	text := goodINFO + "kvs = http://h1:2379, h2:2379\ntransport = UCX\ntimeout = 2.5\niodb_build_mode = varid\nprogress_thread = off\n" + goodFILE
	c, err := ParseConfig("a.ini", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.KVS) != 2 || c.KVS[0] != "http://h1:2379" || c.KVS[1] != "h2:2379" {
		t.Errorf("KVS = %q", c.KVS)
	}
	if c.Transport != TransportUCX || c.Timeout != 2500*time.Millisecond || c.IODBBuildMode != PartitionVarID || c.ProgressThread {
		t.Errorf("got %+v", c)
	}
}

// TestDTFExampleConfig parses DTF's own example configuration: a filename without '%'
// couples every path that contains it.
func TestDTFExampleConfig(t *testing.T) {
	text := "[INFO]\nncomp=2\ncomp_name=\"wrt\"\ncomp_name=\"rdr\"\nbuffer_data=0\n\n[FILE]\nfilename=\"pressure_wave_test\"\ncomp1=\"wrt\"\ncomp2=\"rdr\"\nmode=\"transfer\"\n"
	c, err := ParseConfig("dtf.ini", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"pressure_wave_test.nc", true},
		{"/scratch/out/pressure_wave_test_0001.nc", true},
		{"/scratch/out/restart.nc", false},
	}
	for _, tt := range tests {
		if _, ok := c.FileFor(tt.path); ok != tt.want {
			t.Errorf("FileFor(%q) = %v, want %v", tt.path, ok, tt.want)
		}
	}
	if len(c.Compat) != 0 {
		t.Errorf("Compat = %v, want none", c.Compat)
	}
}

// TestAnchoredOptIn checks that anchored = 1 switches a section, filename and
// exclude_name alike, to whole-path matching, whichever line comes first.
func TestAnchoredOptIn(t *testing.T) {
	text := goodINFO + "[FILE]\nfilename = out/%.nc\nexclude_name = x%.nc\nanchored = 1\ncomp1 = sim\ncomp2 = ana\n" +
		"[FILE]\nfilename = out/%.nc\ncomp1 = ana\ncomp2 = sim\n"
	c, err := ParseConfig("a.ini", []byte(text))
	if err == nil {
		t.Fatal("a second section with the same pattern was accepted")
	}
	text = goodINFO + "[FILE]\nfilename = out/%.nc\nexclude_name = x%.nc\nanchored = 1\ncomp1 = sim\ncomp2 = ana\n" +
		"[FILE]\nfilename = layout/%\ncomp1 = ana\ncomp2 = sim\n"
	if c, err = ParseConfig("a.ini", []byte(text)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		section int // -1: none
	}{
		{"/r/out/a.nc", 0},
		{"/r/out/a.nc.bak", -1},   // anchored at the end
		{"/r/layout/a.nc", 1},     // not by section 0 (anchored), by section 1 (substring)
		{"/r/out/x1.nc", -1},      // exclude_name is anchored too: "x1.nc" follows a '/'
		{"/r/out/ax1.nc", 0},      // "ax1.nc" is no match of "x%.nc" as a whole
		{"/r/layout/out/b.nc", 0}, // the first section that matches wins
	}
	for _, tt := range tests {
		f, ok := c.FileFor(tt.path)
		got := -1
		if ok {
			got = f.Index
		}
		if got != tt.section {
			t.Errorf("FileFor(%q) = section %d, want %d", tt.path, got, tt.section)
		}
	}
}

// TestCompatNotes checks that every key and variable accepted without effect is
// reported with its line, and the ones that act are not.
func TestCompatNotes(t *testing.T) {
	text := goodINFO + "do_checksum = 1\nlog_ioreqs = 0\niodb_range = 4\nbuffered_req_match = 1\n" +
		"[FILE]\nfilename = out/%.nc\ncomp1 = sim\ncomp2 = ana\nmode = file\nwrite_only = 1\nmirror_io_root = 1\n"
	c, err := ParseConfig("c.ini", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DTF_GLOBAL_PATH": "/tmp/x", "DTF_IGNORE_IDLE": "1", "DTF_VERBOSE_LEVEL": "2", "DTF_VAR_BLOCK_RANGE": "8"}
	if err := c.ApplyEnv(mapEnv(env)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range c.Compat {
		got = append(got, n.String())
	}
	want := []string{
		"c.ini:5: do_checksum = 1: " + NoEffectMsg,
		"c.ini:6: log_ioreqs = 0: " + NoEffectMsg,
		"c.ini:14: write_only = 1: " + NoEffectMsg,
		"c.ini:15: mirror_io_root = 1: " + NoEffectMsg,
		"environment: DTF_GLOBAL_PATH=/tmp/x: " + NoEffectMsg,
		"environment: DTF_IGNORE_IDLE=1: " + NoEffectMsg,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Compat:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !c.BufferData || c.IODBRange != 8 || c.VerboseLevel != 2 {
		t.Errorf("buffered_req_match/DTF_VAR_BLOCK_RANGE/DTF_VERBOSE_LEVEL did not apply: %+v", c)
	}
}

func TestUnmatchedFiles(t *testing.T) {
	c, err := LoadConfig("testdata/good.ini")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		comp   string
		opened []string
		want   []int // section lines
	}{
		{"", nil, []int{20, 30, 36}},
		{"v_letkf", []string{"/s/DATA_PATH/1/a.anal.nc", "/s/restart/r.nc"}, []int{30}},
		{"", []string{"/s/DATA_PATH/1/a.hist.nc", "/s/DATA_PATH/init/a.anal.nc"}, []int{20, 36}}, // excluded path
		{"v_scale", []string{"/s/DATA_PATH/1/a.anal.nc", "/s/DATA_PATH/1/a.hist.nc", "restart/x.nc"}, nil},
	}
	for _, tt := range tests {
		var got []int
		for _, f := range c.UnmatchedFiles(tt.comp, tt.opened) {
			got = append(got, f.Line)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("UnmatchedFiles(%q, %v) = %v, want %v", tt.comp, tt.opened, got, tt.want)
		}
	}
}

// TestLaunched pins the launch mode in effect: the key wins; without it, ucx means
// separate launches (as before the key existed) and mpi one mpirun.
func TestLaunched(t *testing.T) {
	for _, tc := range []struct {
		keys string
		want LaunchMode
	}{
		{"", LaunchMPMD},
		{"transport = mpi\n", LaunchMPMD},
		{"transport = ucx\n", LaunchSeparate},
		{"transport = ucx\nlaunch = mpmd\n", LaunchMPMD},
		{"transport = ucx\nlaunch = separate\n", LaunchSeparate},
		{"launch = mpmd\n", LaunchMPMD},
	} {
		c, err := ParseConfig("a.ini", []byte(goodINFO+tc.keys+goodFILE))
		if err != nil {
			t.Fatalf("%q: %v", tc.keys, err)
		}
		if got := c.Launched(); got != tc.want {
			t.Errorf("%q: Launched() = %q, want %q", tc.keys, got, tc.want)
		}
	}
}
