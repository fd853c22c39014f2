package config

import (
	"errors"
	"path"
	"strings"
)

// Pattern is a compiled file-name pattern of a [FILE] section (filename and
// exclude_name keys).
//
// By default a pattern matches as the original DTF matched it:
//   - A pattern without '%' matches a path that contains it, or that it contains
//     ("pressure_wave_test" matches "/scratch/run/pressure_wave_test.nc").
//   - '%' stands for any run of characters, possibly empty, including '/'. The literal
//     pieces between the wildcards must appear in the path in order, without
//     overlapping, anywhere: the match is not anchored at either end, so
//     "out/%.nc" matches "/tmp/layout/a.nc" and "out/a.nc.bak" too.
//
// An anchored pattern (the couplet opt-in `anchored = 1` of a [FILE] section) must
// instead match the whole path, or a suffix of the path that starts right after a '/':
// "out/%.nc" then matches "out/a.nc" and "/tmp/run1/out/a.nc", but not
// "/tmp/layout/a.nc" nor "out/a.nc.bak"; a pattern starting with '/' only matches whole
// absolute paths.
//
// In both forms the pattern and the path are cleaned first (path.Clean), so "a//b/./c"
// and "a/b/c" are the same path, and case is significant.
type Pattern struct {
	src      string   // the pattern as written (after cleaning)
	parts    []string // literal pieces between the '%' wildcards; len(parts) = wildcards+1
	anchored bool
}

// CompilePattern compiles a file-name pattern with DTF's substring matching. It fails
// on an empty pattern.
func CompilePattern(s string) (Pattern, error) {
	if strings.TrimSpace(s) == "" {
		return Pattern{}, errors.New("empty pattern")
	}
	if strings.ContainsRune(s, 0) {
		return Pattern{}, errors.New("pattern contains a NUL byte")
	}
	c := path.Clean(s)
	return Pattern{src: c, parts: strings.Split(c, "%")}, nil
}

// CompileAnchoredPattern compiles a file-name pattern that must match the whole path
// or a suffix of it starting after a '/' (see Pattern).
func CompileAnchoredPattern(s string) (Pattern, error) {
	p, err := CompilePattern(s)
	p.anchored = err == nil
	return p, err
}

// String returns the pattern as compiled.
func (p Pattern) String() string { return p.src }

// Anchored reports whether the pattern is anchored (see Pattern).
func (p Pattern) Anchored() bool { return p.anchored }

// MarshalText makes a Pattern print as its text in JSON and logs.
func (p Pattern) MarshalText() ([]byte, error) { return []byte(p.src), nil }

// Match reports whether the path matches the pattern under the rule described on
// Pattern.
func (p Pattern) Match(name string) bool {
	if p.parts == nil || name == "" {
		return false
	}
	name = path.Clean(name)
	if !p.anchored {
		return p.matchDTF(name)
	}
	if p.matchWhole(name) {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' && i+1 < len(name) && p.matchWhole(name[i+1:]) {
			return true
		}
	}
	return false
}

// matchDTF is the original's rule: inclusion either way without a wildcard, else
// every literal piece in order somewhere in the path.
func (p Pattern) matchDTF(s string) bool {
	if len(p.parts) == 1 {
		return strings.Contains(s, p.src) || strings.Contains(p.src, s)
	}
	for _, lit := range p.parts {
		i := strings.Index(s, lit)
		if i < 0 {
			return false
		}
		s = s[i+len(lit):]
	}
	return true
}

// matchWhole reports whether s as a whole matches the pattern. With only one kind of
// wildcard, taking the leftmost occurrence of each middle literal is always safe.
func (p Pattern) matchWhole(s string) bool {
	if len(p.parts) == 1 {
		return s == p.parts[0]
	}
	first, last := p.parts[0], p.parts[len(p.parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	mid := s[len(first) : len(s)-len(last)]
	for _, lit := range p.parts[1 : len(p.parts)-1] {
		i := strings.Index(mid, lit)
		if i < 0 {
			return false
		}
		mid = mid[i+len(lit):]
	}
	return true
}
