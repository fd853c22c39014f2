package config

import (
	"fmt"
	"slices"
)

// NoEffectMsg is what couplet says about a key or variable of the original DTF that it
// accepts but does not act on.
const NoEffectMsg = "accepted for DTF compatibility, has no effect here"

// noEffectEnv are the environment variables of the original that couplet accepts and
// ignores.
var noEffectEnv = []string{"DTF_DATA_MSG_SIZE_LIMIT", "DTF_GLOBAL_PATH", "DTF_USE_MSG_BUFFER", "DTF_IGNORE_IDLE"}

// CompatNote is one key or environment variable that a config sets, that couplet
// accepts for DTF compatibility, and that has no effect here.
type CompatNote struct {
	File  string // config file; "" for an environment variable
	Line  int    // line of the key; 0 for an environment variable
	Key   string // key (lower-cased) or variable name
	Value string
}

// String says plainly that the setting has no effect, as
// `file.ini:12: do_checksum = 1: accepted for DTF compatibility, has no effect here` or
// `environment: DTF_USE_MSG_BUFFER=1: accepted ...`.
func (n CompatNote) String() string {
	if n.File == "" {
		return fmt.Sprintf("environment: %s=%s: %s", n.Key, n.Value, NoEffectMsg)
	}
	return fmt.Sprintf("%s:%d: %s = %s: %s", n.File, n.Line, n.Key, n.Value, NoEffectMsg)
}

// noteNoEffect records every line of section s that sets one of keys.
func (p *configParser) noteNoEffect(s *iniSection, keys ...string) {
	for _, k := range s.keys {
		if slices.Contains(keys, k.name) {
			p.cfg.Compat = append(p.cfg.Compat, CompatNote{File: p.name, Line: k.line, Key: k.name, Value: k.value})
		}
	}
}

// noteNoEffectEnv records the set environment variables of the original that have no
// effect here.
func (c *Config) noteNoEffectEnv(getenv func(string) string) {
	for _, name := range noEffectEnv {
		if v := getenv(name); v != "" {
			c.Compat = append(c.Compat, CompatNote{Key: name, Value: v})
		}
	}
}

// UnmatchedFiles returns the [FILE] sections that couple component comp (every
// section when comp is "") and that none of the opened paths selects. A path selects
// the first section that matches it (FileFor), so a section shadowed by an earlier one
// counts as unmatched too.
func (c *Config) UnmatchedFiles(comp string, opened []string) []*FileConfig {
	hit := map[int]bool{}
	for _, p := range opened {
		if f, ok := c.FileFor(p); ok {
			hit[f.Index] = true
		}
	}
	var out []*FileConfig
	for _, f := range c.Files {
		if (comp == "" || f.Comp1 == comp || f.Comp2 == comp) && !hit[f.Index] {
			out = append(out, f)
		}
	}
	return out
}
