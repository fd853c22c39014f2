package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config is a parsed DTF configuration file plus environment overrides.
//
// The file is the INI format of the original DTF. Key and section names are
// case-insensitive; values keep their case. Lines starting with '#', ';' or '!' are
// comments; '#' or ';' at the start of a value or after a space starts a comment. Values may be quoted with
// '"' or '\”.
//
// [INFO] must be the first section and appear once:
//
//	ncomp            number of components (required, >= 1)
//	comp_name        one line per component, in component order (required, exactly ncomp)
//	buffer_data      0/1: copy put buffers at the call (default 0)
//	iodb_build_mode  range | varid: how matchers partition the index space (default range)
//	iodb_range       block width of the range partition, in elements (default 0 = auto)
//	do_checksum      0/1: accepted for DTF compatibility, has no effect here
//	log_ioreqs       0/1: accepted for DTF compatibility, has no effect here
//	buffered_req_match  the older DTF spelling of buffer_data
//
// Additions of couplet, also in [INFO]:
//
//	num_matchers     writer-side matchers per file (default 0 = one per MAX_WORKGROUP_SIZE writer ranks)
//	timeout          how long any wait may last: a Go duration ("90s", "2m") or seconds (default 180s)
//	unwritten        error | fill: what a read of never-written data gets (default error)
//	stats_path       JSON-lines statistics file, one record per rank, file and epoch (default "" = off)
//	transport        mpi | ucx (default mpi)
//	kvs              comma-separated etcd endpoints, for separate launches (default "")
//	progress_thread  0/1: background progress when MPI offers THREAD_MULTIPLE (default 1)
//
// [FILE] sections, one or more, tried in file order (see FileFor):
//
//	filename         file-name pattern, matched as DTF did (required; see Pattern)
//	exclude_name     pattern of names this section does not cover (repeatable)
//	anchored         0/1: couplet opt-in, filename and exclude_name must match the whole
//	                 path or a suffix after a '/' instead of a substring (default 0)
//	comp1, comp2     the two coupled components (required, declared, different)
//	mode             transfer | file (default transfer)
//	replay_io        0/1: replay recorded schedules in later epochs (default 0)
//	num_sessions     open/close sessions before the file's state is freed (default 1)
//	write_only       0/1: file mode only; accepted for DTF compatibility, has no effect here
//	mirror_io_root   0/1: accepted for DTF compatibility, has no effect here
//
// Booleans accept 0/1, true/false, yes/no and on/off. Unknown sections and keys,
// repeated keys (other than comp_name and exclude_name), bad numbers and bad enum values
// are errors; ParseConfig reports every one of them as a *ConfigError naming the line.
//
// Environment overrides, applied by ApplyEnv (LoadConfigEnv does it for you); an empty
// variable counts as unset:
//
//	DTF_INI_FILE             config path used instead of the one the program gives (ConfigPath)
//	DTF_TIMEOUT              timeout, seconds or Go duration
//	MAX_WORKGROUP_SIZE       writer ranks per matcher when num_matchers is 0 (default 64)
//	DTF_VERBOSE_LEVEL        -1..4 (default 0): -1 silences warnings; 1 and up print the
//	                         configuration at start-up and warn at finalize about [FILE]
//	                         sections that matched no file the component opened; 2 and up
//	                         print a line per control message and per matching (trace)
//	DTF_PRINT_STATS          0/1: each rank prints a statistics line at finalize (default 0)
//	DTF_DATA_MSG_SIZE_LIMIT  accepted for DTF compatibility, has no effect here (KiB)
//	DTF_VAR_BLOCK_RANGE      overrides iodb_range
//	COUPLET_REPLAY_IO        0/1: overrides replay_io of every [FILE] section
//	COUPLET_MODE             transfer|file: overrides mode of every [FILE] section
//	COUPLET_STATS            overrides stats_path
//	COUPLET_TRANSPORT        mpi|ucx: overrides transport
//	COUPLET_KVS              overrides kvs (etcd endpoints for separate launches)
//
// Variables of the original accepted for DTF compatibility that have no effect here:
// DTF_GLOBAL_PATH (no port files; separate launches meet through the KVS),
// DTF_USE_MSG_BUFFER, DTF_IGNORE_IDLE. MPMD_COMP is read by component detection, not
// here. Every key or variable that is set and has no effect is listed in Compat.
//
// iodb_range (or DTF_VAR_BLOCK_RANGE), when above 0 in range mode, cuts the first fixed
// dimension of each variable into blocks of that many indices, dealt to the matchers in
// turn, as DTF cut dimension 0; 0 lets couplet cut every fixed dimension evenly.
type Config struct {
	Path           string        // the file name the config was read from
	NComp          int           // ncomp
	CompNames      []string      // comp_name lines, in order
	BufferData     bool          // buffer_data
	IODBBuildMode  PartitionMode // iodb_build_mode
	IODBRange      int64         // iodb_range; 0 = auto
	DoChecksum     bool          // do_checksum
	LogIOReqs      bool          // log_ioreqs
	NumMatchers    int           // num_matchers; 0 = auto, see MatcherCount
	Timeout        time.Duration // timeout
	Unwritten      UnwrittenMode // unwritten
	StatsPath      string        // stats_path; "" = off
	Transport      TransportKind // transport: the wire
	Launch         LaunchMode    // launch; "" = see Launched
	KVS            []string      // kvs endpoints
	ProgressThread bool          // progress_thread
	Files          []*FileConfig // [FILE] sections in file order

	// Set only from the environment.
	MaxWorkgroupSize int      // MAX_WORKGROUP_SIZE
	VerboseLevel     int      // DTF_VERBOSE_LEVEL
	PrintStats       bool     // DTF_PRINT_STATS
	DataMsgSizeLimit int64    // DTF_DATA_MSG_SIZE_LIMIT, in bytes
	EnvApplied       []string // environment variables ApplyEnv used, as NAME=value

	// Compat lists the keys and variables that are set, accepted for DTF
	// compatibility, and have no effect here, in line order (environment last).
	Compat []CompatNote
}

// FileConfig is one [FILE] section.
type FileConfig struct {
	Index        int       // position among the [FILE] sections, from 0; replay records are keyed by it
	Line         int       // line of the section header
	Filename     Pattern   // filename
	Exclude      []Pattern // exclude_name lines
	Comp1, Comp2 string    // the coupled components
	Mode         FileMode  // mode
	ReplayIO     bool      // replay_io
	NumSessions  int       // num_sessions
	WriteOnly    bool      // write_only
	MirrorIORoot bool      // mirror_io_root
	Anchored     bool      // anchored: patterns match whole paths (couplet opt-in)
}

// PartitionMode is how matchers split a variable's index space (iodb_build_mode).
type PartitionMode string

// Partition modes.
const (
	PartitionRange PartitionMode = "range" // blocks of the N-d index space
	PartitionVarID PartitionMode = "varid" // whole variables, by varid
)

// UnwrittenMode is what a read of data no writer wrote gets (unwritten).
type UnwrittenMode string

// Unwritten-data policies.
const (
	UnwrittenError UnwrittenMode = "error" // the read fails, naming variable and box
	UnwrittenFill  UnwrittenMode = "fill"  // the read gets the variable's fill value
)

// TransportKind is how data moves between components (transport).
type TransportKind string

// Transports.
const (
	TransportMPI TransportKind = "mpi" // MPI point-to-point; needs launch = mpmd
	TransportUCX TransportKind = "ucx" // UCX tagged messages; either launch mode
)

// LaunchMode is how the components were started (launch): a setting of its own,
// apart from the wire the transport speaks.
type LaunchMode string

// Launch modes.
const (
	LaunchMPMD     LaunchMode = "mpmd"     // one mpirun starts every component; they share MPI_COMM_WORLD
	LaunchSeparate LaunchMode = "separate" // each component is its own launch; ranks meet in the KVS
)

// FileMode is how a [FILE] section couples its files (mode).
type FileMode string

// File modes.
const (
	ModeTransfer FileMode = "transfer" // data moves by messages, no file is written
	ModeFile     FileMode = "file"     // real files; the reader's open waits for the writer's close
)

// Defaults of the keys and variables that have one.
const (
	DefaultTimeout          = 180 * time.Second
	DefaultMaxWorkgroupSize = 64
	DefaultDataMsgSizeLimit = 64 << 20
)

// ConfigError is one problem in a configuration: a line of a file, or an environment
// variable.
type ConfigError struct {
	File string // config file name; "" for an environment variable
	Line int    // 1-based line; 0 if the problem has no line
	Key  string // key (lower-cased) or environment variable; may be ""
	Msg  string
}

// Error formats the problem as `file.ini:LINE: key "x": message`, or
// `environment: DTF_TIMEOUT: message`.
func (e *ConfigError) Error() string {
	var b strings.Builder
	switch {
	case e.File == "":
		b.WriteString("environment: ")
		if e.Key != "" {
			b.WriteString(e.Key + ": ")
		}
		b.WriteString(e.Msg)
		return b.String()
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	default:
		b.WriteString(e.File + ": ")
	}
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func lineErr(file string, line int, key, format string, args ...any) error {
	return &ConfigError{File: file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// LoadConfig reads and parses a config file. See ParseConfig.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dtf config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig parses config data; name is used in error messages. On failure the error
// joins (errors.Join) one *ConfigError per problem found, in line order.
func ParseConfig(name string, data []byte) (*Config, error) {
	secs, errs := readINI(name, data)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	p := &configParser{name: name, cfg: &Config{
		Path:             name,
		IODBBuildMode:    PartitionRange,
		Timeout:          DefaultTimeout,
		Unwritten:        UnwrittenError,
		Transport:        TransportMPI,
		ProgressThread:   true,
		MaxWorkgroupSize: DefaultMaxWorkgroupSize,
		DataMsgSizeLimit: DefaultDataMsgSizeLimit,
	}}
	p.parse(secs)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool {
			return p.errs[i].(*ConfigError).Line < p.errs[j].(*ConfigError).Line
		})
		return nil, errors.Join(p.errs...)
	}
	return p.cfg, nil
}

// configParser turns sections into a Config, collecting every error.
type configParser struct {
	name string
	cfg  *Config
	errs []error
}

func (p *configParser) errorf(line int, key, format string, args ...any) {
	p.errs = append(p.errs, lineErr(p.name, line, key, format, args...))
}

func (p *configParser) parse(secs []*iniSection) {
	if len(secs) == 0 {
		p.errorf(0, "", "no sections: [INFO] and at least one [FILE] are required")
		return
	}
	var info *iniSection
	for i, s := range secs {
		switch s.name {
		case "INFO":
			if i != 0 {
				p.errorf(s.line, "", "[INFO] must be the first section")
			}
			if info != nil {
				p.errorf(s.line, "", "second [INFO] section (first at line %d)", info.line)
				continue
			}
			info = s
			p.parseInfo(s)
		case "FILE":
			if info == nil && i == 0 {
				p.errorf(s.line, "", "[INFO] must be the first section")
			}
		default:
			p.errorf(s.line, "", "unknown section [%s] (want INFO or FILE)", s.name)
		}
	}
	if info == nil {
		return // component names unknown: [FILE] checks would only add noise
	}
	for _, s := range secs {
		if s.name == "FILE" {
			p.parseFile(s)
		}
	}
	if len(p.cfg.Files) == 0 && len(p.errs) == 0 {
		p.errorf(info.line, "", "no [FILE] section: nothing is coupled")
	}
}

// keySetter parses one value into the config; it returns an error message.
type keySetter func(v string) error

// applyKeys runs the setter of each key, reporting unknown keys and repeats of keys
// not in repeatable. It returns the line of each key seen (the first occurrence).
func (p *configParser) applyKeys(s *iniSection, setters map[string]keySetter, repeatable map[string]bool) map[string]int {
	seen := map[string]int{}
	for _, k := range s.keys {
		set, ok := setters[k.name]
		if !ok {
			p.errorf(k.line, k.name, "unknown key in [%s]", s.name)
			continue
		}
		if first, dup := seen[k.name]; dup && !repeatable[k.name] {
			p.errorf(k.line, k.name, "repeated (first set at line %d)", first)
			continue
		}
		if _, dup := seen[k.name]; !dup {
			seen[k.name] = k.line
		}
		if err := set(k.value); err != nil {
			p.errorf(k.line, k.name, "%v", err)
		}
	}
	return seen
}

func (p *configParser) parseInfo(s *iniSection) {
	c := p.cfg
	names := map[string]int{}
	setters := map[string]keySetter{
		"ncomp": intSetter(&c.NComp, 1, math.MaxInt32),
		"comp_name": func(v string) error {
			if v == "" {
				return errors.New("empty component name")
			}
			if strings.ContainsAny(v, " \t,") {
				return fmt.Errorf("component name %q contains a space or comma", v)
			}
			if _, dup := names[v]; dup {
				return fmt.Errorf("component %q declared twice", v)
			}
			names[v] = len(c.CompNames)
			c.CompNames = append(c.CompNames, v)
			return nil
		},
		"buffer_data":        boolSetter(&c.BufferData),
		"iodb_build_mode":    enumSetter(&c.IODBBuildMode, PartitionRange, PartitionVarID),
		"iodb_range":         int64Setter(&c.IODBRange, 0, math.MaxInt64),
		"buffered_req_match": boolSetter(&c.BufferData),
		"do_checksum":        boolSetter(&c.DoChecksum),
		"log_ioreqs":         boolSetter(&c.LogIOReqs),
		"num_matchers":       intSetter(&c.NumMatchers, 0, math.MaxInt32),
		"timeout": func(v string) (err error) {
			c.Timeout, err = parseTimeout(v)
			return err
		},
		"unwritten":       enumSetter(&c.Unwritten, UnwrittenError, UnwrittenFill),
		"stats_path":      func(v string) error { c.StatsPath = v; return nil },
		"transport":       enumSetter(&c.Transport, TransportMPI, TransportUCX),
		"launch":          enumSetter(&c.Launch, LaunchMPMD, LaunchSeparate),
		"kvs":             func(v string) (err error) { c.KVS, err = parseEndpoints(v); return err },
		"progress_thread": boolSetter(&c.ProgressThread),
	}
	seen := p.applyKeys(s, setters, map[string]bool{"comp_name": true})
	p.noteNoEffect(s, "do_checksum", "log_ioreqs")
	nline, hasN := seen["ncomp"]
	switch {
	case !hasN:
		p.errorf(s.line, "ncomp", "required in [INFO]")
	case c.NComp > 0 && countKeys(s, "comp_name") != c.NComp:
		p.errorf(nline, "ncomp", "is %d but [INFO] has %d comp_name line(s)", c.NComp, countKeys(s, "comp_name"))
	}
	if _, ok := seen["comp_name"]; !ok {
		p.errorf(s.line, "comp_name", "required in [INFO], one line per component")
	}
	if line, ok := seen["launch"]; ok && c.Launch == LaunchSeparate && c.Transport == TransportMPI {
		p.errorf(line, "launch", "separate launches share no MPI world: set transport = ucx")
	}
}

func (p *configParser) parseFile(s *iniSection) {
	c := p.cfg
	fc := &FileConfig{Index: len(c.Files), Line: s.line, Mode: ModeTransfer, NumSessions: 1}
	var filename string
	var excludes []string
	compSetter := func(dst *string) keySetter {
		return func(v string) error {
			if c.CompIndex(v) < 0 {
				for _, n := range c.CompNames {
					if strings.EqualFold(n, v) {
						return fmt.Errorf("component %q is not declared (names are case-sensitive: did you mean %q?)", v, n)
					}
				}
				return fmt.Errorf("component %q is not declared in [INFO] (have %s)", v, strings.Join(c.CompNames, ", "))
			}
			*dst = v
			return nil
		}
	}
	setters := map[string]keySetter{
		"filename": func(v string) error {
			_, err := CompilePattern(v)
			if err == nil {
				filename = v
			}
			return err
		},
		"exclude_name": func(v string) error {
			_, err := CompilePattern(v)
			if err == nil {
				excludes = append(excludes, v)
			}
			return err
		},
		"anchored":       boolSetter(&fc.Anchored),
		"comp1":          compSetter(&fc.Comp1),
		"comp2":          compSetter(&fc.Comp2),
		"mode":           enumSetter(&fc.Mode, ModeTransfer, ModeFile),
		"replay_io":      boolSetter(&fc.ReplayIO),
		"num_sessions":   intSetter(&fc.NumSessions, 1, math.MaxInt32),
		"write_only":     boolSetter(&fc.WriteOnly),
		"mirror_io_root": boolSetter(&fc.MirrorIORoot),
	}
	nerr := len(p.errs)
	seen := p.applyKeys(s, setters, map[string]bool{"exclude_name": true})
	p.noteNoEffect(s, "write_only", "mirror_io_root")
	for _, k := range []string{"filename", "comp1", "comp2"} {
		if _, ok := seen[k]; !ok {
			p.errorf(s.line, k, "required in [FILE]")
		}
	}
	if fc.Comp1 != "" && fc.Comp1 == fc.Comp2 {
		p.errorf(seen["comp2"], "comp2", "same component as comp1 (%q)", fc.Comp1)
	}
	if fc.WriteOnly && fc.Mode != ModeFile {
		p.errorf(seen["write_only"], "write_only", "only meaningful with mode = file")
	}
	compile := CompilePattern
	if fc.Anchored {
		compile = CompileAnchoredPattern
	}
	for _, x := range excludes {
		pat, _ := compile(x) // checked by the setter
		fc.Exclude = append(fc.Exclude, pat)
	}
	if filename != "" {
		fc.Filename, _ = compile(filename)
		for _, o := range c.Files {
			if o.Filename.String() == fc.Filename.String() {
				p.errorf(seen["filename"], "filename", "pattern %q already used by the [FILE] section at line %d, which always wins", fc.Filename, o.Line)
			}
		}
	}
	if len(p.errs) == nerr {
		c.Files = append(c.Files, fc)
	}
}

func countKeys(s *iniSection, name string) int {
	n := 0
	for _, k := range s.keys {
		if k.name == name {
			n++
		}
	}
	return n
}

// Launched is the launch mode in effect: the launch key, else separate when the
// transport is ucx (each launch its own world, as DTF's UCX users run it) and mpmd
// otherwise.
func (c *Config) Launched() LaunchMode {
	switch {
	case c.Launch != "":
		return c.Launch
	case c.Transport == TransportUCX:
		return LaunchSeparate
	}
	return LaunchMPMD
}

// CompIndex returns the index of the named component in comp_name order, or -1.
// Names are case-sensitive.
func (c *Config) CompIndex(name string) int {
	for i, n := range c.CompNames {
		if n == name {
			return i
		}
	}
	return -1
}

// FileFor returns the first [FILE] section whose filename pattern matches path and none
// of whose exclude_name patterns do.
func (c *Config) FileFor(path string) (*FileConfig, bool) {
	for _, f := range c.Files {
		if f.Matches(path) {
			return f, true
		}
	}
	return nil, false
}

// Matches reports whether the section covers path: filename matches and no
// exclude_name does.
func (f *FileConfig) Matches(path string) bool {
	if !f.Filename.Match(path) {
		return false
	}
	for _, x := range f.Exclude {
		if x.Match(path) {
			return false
		}
	}
	return true
}

// MatcherCount returns how many matchers serve a writer component of writerRanks
// ranks: num_matchers if set, else one per MaxWorkgroupSize ranks (rounded up); always
// between 1 and writerRanks.
func (c *Config) MatcherCount(writerRanks int) int {
	if writerRanks <= 1 {
		return 1
	}
	n := c.NumMatchers
	if n <= 0 {
		wg := c.MaxWorkgroupSize
		if wg <= 0 {
			wg = DefaultMaxWorkgroupSize
		}
		n = (writerRanks + wg - 1) / wg
	}
	return min(max(n, 1), writerRanks)
}

func boolSetter(dst *bool) keySetter {
	return func(v string) (err error) {
		*dst, err = parseBool(v)
		return err
	}
}

func intSetter(dst *int, lo, hi int64) keySetter {
	return func(v string) error {
		n, err := parseInt(v, lo, hi)
		*dst = int(n)
		return err
	}
}

func int64Setter(dst *int64, lo, hi int64) keySetter {
	return func(v string) (err error) {
		*dst, err = parseInt(v, lo, hi)
		return err
	}
}

func enumSetter[T ~string](dst *T, allowed ...T) keySetter {
	return func(v string) (err error) {
		*dst, err = parseEnum(v, allowed...)
		return err
	}
}

// parseBool accepts 0/1, true/false, yes/no and on/off, in any case.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("want 0 or 1, got %q", v)
}

func parseInt(v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %q", v)
	}
	if n < lo || n > hi {
		if hi == math.MaxInt64 || hi == math.MaxInt32 {
			return 0, fmt.Errorf("want an integer >= %d, got %d", lo, n)
		}
		return 0, fmt.Errorf("want an integer in %d..%d, got %d", lo, hi, n)
	}
	return n, nil
}

func parseEnum[T ~string](v string, allowed ...T) (T, error) {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if strings.EqualFold(v, string(a)) {
			return a, nil
		}
		names[i] = string(a)
	}
	return "", fmt.Errorf("want %s, got %q", strings.Join(names, " or "), v)
}

// parseTimeout accepts seconds ("90", "1.5") or a Go duration ("2m"); it must be > 0.
func parseTimeout(v string) (time.Duration, error) {
	var d time.Duration
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(s) || math.IsInf(s, 0) || s > float64(math.MaxInt64)/float64(time.Second) {
			return 0, fmt.Errorf("timeout %q out of range", v)
		}
		d = time.Duration(s * float64(time.Second))
	} else if d, err = time.ParseDuration(v); err != nil {
		return 0, fmt.Errorf("want seconds or a duration such as 90s or 2m, got %q", v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("timeout must be positive, got %q", v)
	}
	return d, nil
}

// parseEndpoints splits a comma-separated endpoint list; empty input gives nil.
func parseEndpoints(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var eps []string
	for _, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		if e == "" || strings.ContainsAny(e, " \t") {
			return nil, fmt.Errorf("bad endpoint list %q: want host:port or URLs separated by commas", v)
		}
		eps = append(eps, e)
	}
	return eps, nil
}
