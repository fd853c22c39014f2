package config

import (
	"fmt"
	"io"
	"strings"
)

// WriteSummary prints what the configuration means, as `couplet config check` and a
// verbose start-up show it: components, matching, transport, the environment
// overrides used, every [FILE] section, and one line per setting accepted for DTF
// compatibility that has no effect here.
func (c *Config) WriteSummary(out io.Writer) {
	var w strings.Builder // written at once, so that tagged mpirun output keeps its lines
	defer func() { io.WriteString(out, w.String()) }()
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	matchers := "auto (1 per " + fmt.Sprint(c.MaxWorkgroupSize) + " writer ranks)"
	if c.NumMatchers > 0 {
		matchers = fmt.Sprint(c.NumMatchers)
	}
	partition := string(c.IODBBuildMode)
	if c.IODBRange > 0 {
		partition += fmt.Sprintf(" (iodb_range %d)", c.IODBRange)
	}
	stats := c.StatsPath
	if stats == "" {
		stats = "off"
	}
	fmt.Fprintf(&w, "OK: %s\n", c.Path)
	fmt.Fprintf(&w, "  components: %s\n", strings.Join(c.CompNames, ", "))
	fmt.Fprintf(&w, "  matching: %s matchers, partition %s, buffer_data %s, unwritten %s\n",
		matchers, partition, onOff(c.BufferData), c.Unwritten)
	fmt.Fprintf(&w, "  transport %s, launch %s, timeout %v, progress thread %s, stats %s, verbose %d\n",
		c.Transport, c.Launched(), c.Timeout, onOff(c.ProgressThread), stats, c.VerboseLevel)
	if len(c.EnvApplied) > 0 {
		fmt.Fprintf(&w, "  environment: %s\n", strings.Join(c.EnvApplied, " "))
	}
	for _, f := range c.Files {
		match := "substring"
		if f.Anchored {
			match = "anchored"
		}
		fmt.Fprintf(&w, "  [FILE] line %d: %s (%s)  %s -> %s  mode %s  sessions %d  replay %s",
			f.Line, f.Filename, match, f.Comp1, f.Comp2, f.Mode, f.NumSessions, onOff(f.ReplayIO))
		if len(f.Exclude) > 0 {
			ex := make([]string, len(f.Exclude))
			for i, x := range f.Exclude {
				ex[i] = x.String()
			}
			fmt.Fprintf(&w, "  exclude %s", strings.Join(ex, ", "))
		}
		fmt.Fprintln(&w)
	}
	for _, n := range c.Compat {
		fmt.Fprintf(&w, "  note: %s\n", n)
	}
}

// WriteUnmatched prints a warning for each [FILE] section of component comp ("" for
// all) that none of the opened paths selects, and returns how many it printed.
func (c *Config) WriteUnmatched(w io.Writer, comp string, opened []string) int {
	un := c.UnmatchedFiles(comp, opened)
	for _, f := range un {
		how := "it contains the pattern, or the pattern contains it, '%' matching any run of characters"
		if f.Anchored {
			how = "the pattern matches it whole or after a '/'"
		}
		// One Write per warning, so that mpirun's output tagging keeps it on one line.
		var b strings.Builder
		fmt.Fprintf(&b, "warning: %s:%d: [FILE] filename %q matched no file", c.Path, f.Line, f.Filename)
		if comp != "" {
			fmt.Fprintf(&b, " that component %s opened", comp)
		}
		fmt.Fprintf(&b, " (a path matches if %s", how)
		if len(opened) > 0 {
			fmt.Fprintf(&b, "; opened: %s", strings.Join(opened, ", "))
		}
		b.WriteString(")\n")
		io.WriteString(w, b.String())
	}
	return len(un)
}
