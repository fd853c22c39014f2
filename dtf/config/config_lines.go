package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/ini.v1"
)

// iniSection is one section of a config file as written, with the line of its header.
type iniSection struct {
	name string // upper-cased section name, e.g. "INFO"
	line int
	keys []iniKey
}

// iniKey is one key line: the key name (lower-cased), its line and its decoded value.
type iniKey struct {
	name  string
	line  int
	value string
}

var keyNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// readINI splits a config file into sections and key lines, keeping the line of each.
//
// gopkg.in/ini.v1 decodes the values (quotes, inline comments, whitespace) but knows no
// line numbers. So this layer owns the structure: it checks the syntax of every line
// and hands ini.v1 a rewritten copy in which each section header and key name is
// replaced by a tag carrying its line ("[s12]", "k14 = value"). Looking a value up by
// its tag then maps it to its line exactly, with no shadow or duplicate bookkeeping.
//
// Lines whose first non-blank character is '#', ';' or '!' are comments; '#' and ';'
// also start a comment where a value starts or after a space ("a#1.nc" is a value). Values may be quoted with
// '"' or '\”. Key and section names are case-insensitive; values keep their case.
func readINI(name string, data []byte) ([]*iniSection, []error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := strings.Split(string(data), "\n")
	var (
		secs []*iniSection
		errs []error
		out  strings.Builder
	)
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		switch {
		case line == "" || strings.ContainsRune("#;!", rune(line[0])):
			// blank or comment
		case line[0] == '[':
			end := strings.IndexByte(line, ']')
			if end < 0 {
				errs = append(errs, lineErr(name, n, "", "unclosed section header %q", line))
				break
			}
			if rest := strings.TrimSpace(line[end+1:]); rest != "" && !strings.ContainsRune("#;!", rune(rest[0])) {
				errs = append(errs, lineErr(name, n, "", "unexpected text %q after section header", rest))
				break
			}
			sname := strings.TrimSpace(line[1:end])
			if !keyNameRE.MatchString(sname) {
				errs = append(errs, lineErr(name, n, "", "bad section name %q", sname))
				break
			}
			secs = append(secs, &iniSection{name: strings.ToUpper(sname), line: n})
			fmt.Fprintf(&out, "[s%d]", n)
		default:
			eq := strings.IndexByte(line, '=')
			if eq < 0 {
				errs = append(errs, lineErr(name, n, "", "expected key = value, got %q", line))
				break
			}
			key := strings.TrimSpace(line[:eq])
			if !keyNameRE.MatchString(key) {
				errs = append(errs, lineErr(name, n, "", "bad key name %q", key))
				break
			}
			key = strings.ToLower(key)
			if len(secs) == 0 {
				errs = append(errs, lineErr(name, n, key, "key outside any section ([INFO] must come first)"))
				break
			}
			val := strings.TrimSpace(line[eq+1:])
			if val != "" && (val[0] == '#' || val[0] == ';') {
				val = "" // "key = # note": the comment starts right after the '='
			}
			if msg := quoteProblem(val); msg != "" {
				errs = append(errs, lineErr(name, n, key, "%s", msg))
				break
			}
			sec := secs[len(secs)-1]
			sec.keys = append(sec.keys, iniKey{name: key, line: n})
			fmt.Fprintf(&out, "k%d = %s", n, val)
		}
		out.WriteByte('\n')
	}
	if len(errs) > 0 {
		return nil, errs
	}
	f, err := ini.LoadSources(ini.LoadOptions{
		IgnoreContinuation:        true, // a trailing '\' is part of the value
		SpaceBeforeInlineComment:  true, // "a#b.nc" is a name, "a.nc # x" has a comment
		UnescapeValueDoubleQuotes: true,
		KeyValueDelimiters:        "=",
	}, []byte(out.String()))
	if err != nil {
		return nil, []error{fmt.Errorf("%s: %w", name, err)}
	}
	for _, s := range secs {
		is := f.Section(fmt.Sprintf("s%d", s.line))
		for j := range s.keys {
			k := &s.keys[j]
			tag := fmt.Sprintf("k%d", k.line)
			if !is.HasKey(tag) {
				errs = append(errs, lineErr(name, k.line, k.name, "value could not be read (unterminated quote on this or an earlier line?)"))
				continue
			}
			k.value = is.Key(tag).String()
		}
	}
	return secs, errs
}

// quoteProblem reports a quoted value that does not close on its own line; ini.v1 would
// otherwise read on into the following lines.
func quoteProblem(v string) string {
	if v == "" {
		return ""
	}
	if strings.HasPrefix(v, "`") || strings.HasPrefix(v, `"""`) {
		return "backtick and triple-quoted values are not supported"
	}
	q := v[0]
	if q != '"' && q != '\'' {
		return ""
	}
	for i := 1; i < len(v); i++ {
		if v[i] == '\\' && q == '"' {
			i++
			continue
		}
		if v[i] == q {
			if q == '\'' && (strings.Contains(v[:i], " #") || strings.Contains(v[:i], " ;")) {
				return "' #' and ' ;' start a comment even inside single quotes; use double quotes"
			}
			rest := strings.TrimSpace(v[i+1:])
			if rest != "" && !strings.HasPrefix(rest, "#") && !strings.HasPrefix(rest, ";") {
				return fmt.Sprintf("unexpected text %q after quoted value", rest)
			}
			return ""
		}
	}
	return "unterminated quoted value"
}
