package dtf

import (
	"errors"
	"path"
	"strings"
)

// Pattern is a compiled file-name pattern of a [FILE] section (filename and
// exclude_name keys).
//
// Matching rule:
//   - '%' stands for any run of characters, possibly empty, including '/'.
//     Every other character matches itself; case is significant.
//   - Both the pattern and the path are cleaned first (path.Clean), so "a//b/./c" and
//     "a/b/c" are the same path.
//   - A pattern is anchored: it must match the whole path, or a suffix of the path that
//     starts right after a '/'. So "out/%.nc" matches "out/a.nc" and "/tmp/run1/out/a.nc",
//     but not "/tmp/layout/a.nc" (the suffix "out/a.nc" does not start at a component
//     boundary) and not "out/a.nc.bak".
//   - A pattern starting with '/' therefore only matches whole absolute paths.
//
// The original DTF matched unanchored substrings in both directions; to get that
// behaviour write "%name%".
type Pattern struct {
	src   string   // the pattern as written (after cleaning)
	parts []string // literal pieces between the '%' wildcards; len(parts) = wildcards+1
}

// CompilePattern compiles a file-name pattern. It fails on an empty pattern.
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

// String returns the pattern as compiled.
func (p Pattern) String() string { return p.src }

// MarshalText makes a Pattern print as its text in JSON and logs.
func (p Pattern) MarshalText() ([]byte, error) { return []byte(p.src), nil }

// Match reports whether the path matches the pattern under the anchored rule described
// on Pattern.
func (p Pattern) Match(name string) bool {
	if p.parts == nil || name == "" {
		return false
	}
	name = path.Clean(name)
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
