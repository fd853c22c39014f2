package bench

import (
	"os"
	"strings"
)

// Sections of PERFORMANCE.md that other tools measure and write between
// these markers (make cluster-bench writes the virtual cluster's numbers):
// WriteOutputs carries them over when it rewrites the page.
const (
	KeptBegin = "<!-- measured elsewhere: begin -->"
	KeptEnd   = "<!-- measured elsewhere: end -->"
)

// keptSection returns the marked section of the page at path, markers
// included, or "" when there is none.
func keptSection(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := string(b)
	i, j := strings.Index(s, KeptBegin), strings.Index(s, KeptEnd)
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+len(KeptEnd)]
}

// ReplaceKept puts section (markers included) into the page at path in
// place of its marked section, or appends it.
func ReplaceKept(path, section string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	if old := keptSection(path); old != "" {
		s = strings.Replace(s, old, section, 1)
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
