package mpilaunch

import (
	"regexp"
	"strconv"
	"strings"
)

// Failure is one failure line a rank reported.
type Failure struct {
	Rank int    // rank in MPI_COMM_WORLD (-1 when unknown)
	Msg  string // the reported text
}

var (
	// tagRE matches mpirun's --tag-output prefix "[job,rank]<stream>:".
	tagRE = regexp.MustCompile(`^\[\d+,(\d+)\]<(?:stdout|stderr|stddiag)>:`)
	// failRE matches the line Fail prints.
	failRE = regexp.MustCompile(`FAIL rank (-?\d+): (.*)$`)
	// panicRE matches the first line of a Go panic or fatal error.
	panicRE = regexp.MustCompile(`^(panic: |fatal error: )`)
)

// Failures extracts each rank's failure lines from tagged mpirun output:
// "FAIL rank N: ..." lines and Go panics, in output order.
func Failures(out string) []Failure {
	var fs []Failure
	for _, line := range strings.Split(out, "\n") {
		rank, text := -1, line
		if m := tagRE.FindStringSubmatch(line); m != nil {
			rank, _ = strconv.Atoi(m[1])
			text = line[len(m[0]):]
		}
		if m := failRE.FindStringSubmatch(text); m != nil {
			r, _ := strconv.Atoi(m[1])
			fs = append(fs, Failure{Rank: r, Msg: m[2]})
		} else if panicRE.MatchString(text) {
			fs = append(fs, Failure{Rank: rank, Msg: text})
		}
	}
	return fs
}

// RankLines returns the untagged lines that rank printed.
func RankLines(out string, rank int) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if m := tagRE.FindStringSubmatch(line); m != nil {
			if r, _ := strconv.Atoi(m[1]); r == rank {
				lines = append(lines, line[len(m[0]):])
			}
		}
	}
	return lines
}
