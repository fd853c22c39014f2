package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
)

// stepFiles lists the step files a run of j writes, in step order.
func stepFiles(j job) []string {
	var out []string
	for _, s := range heatfile.OutputSteps(j.steps, j.every) {
		out = append(out, heatfile.FileName(j.out, s))
	}
	return out
}

// wantBytes is what the readers of one step file receive in all: T
// (double) and flux (float) once over the bands, and the step scalar
// (int64) once per reader rank.
func wantBytes(j job) int64 {
	return int64(j.nx)*int64(j.ny)*(8+4) + int64(j.readers)*8
}

// checkTransfer checks a transfer-mode run: no step file reached the disk,
// the dtf statistics account for every step file's bytes, and replay served
// every step file but the first (see checkReplay).
func checkTransfer(j job, statsPath string) ([]string, error) {
	files := stepFiles(j)
	if len(files) == 0 {
		return nil, errNoSteps
	}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return nil, fmt.Errorf("transfer mode wrote %s to disk", f)
		}
	}
	report := []string{fmt.Sprintf("transfer mode: none of the %d step files touched the disk", len(files))}
	if statsPath == "" {
		return report, nil
	}
	sums, err := readStats(statsPath)
	if err != nil {
		return report, err
	}
	got := map[string]int64{}
	for _, s := range sums {
		got[s.File] += s.Bytes
		if s.Errors > 0 {
			return report, fmt.Errorf("dtf stats: %d errors in %s epoch %d", s.Errors, s.File, s.Epoch)
		}
	}
	for _, f := range files {
		if got[f] != wantBytes(j) {
			return report, fmt.Errorf("dtf stats: %s delivered %d bytes to the readers, want %d", f, got[f], wantBytes(j))
		}
	}
	report = append(report, fmt.Sprintf("dtf stats: every step file delivered its %.1f MB to the readers", float64(wantBytes(j))/1e6))
	line, err := checkReplay(files, sums)
	return append(report, line), err
}

// checkReplay checks what replay did, by the statistics: every step file
// repeats the first one's I/O pattern, so the first epoch misses replay and
// is matched (its matchers spent time matching), and every later one is
// served by the record with no matching at all.
func checkReplay(files []string, sums []stats.Summary) (string, error) {
	byFile := map[string][]stats.Summary{}
	for _, s := range sums {
		byFile[s.File] = append(byFile[s.File], s)
	}
	var first stats.Summary
	for i, f := range files {
		eps := byFile[f]
		if len(eps) != 1 {
			return "", fmt.Errorf("dtf stats: %s has %d epochs, want 1", f, len(eps))
		}
		s, want := eps[0], stats.Hit
		if i == 0 {
			first, want = s, stats.Miss
		}
		if s.Replay() != string(want) {
			return "", fmt.Errorf("dtf stats: %s: replay %s (%d hit, %d miss of %d ranks), want %s", filepath.Base(f), s.Replay(), s.Hits, s.Misses, s.Writers+s.Readers, want)
		}
		if i == 0 && s.Match <= 0 {
			return "", fmt.Errorf("dtf stats: %s missed replay but records no matching time", filepath.Base(f))
		}
		if i > 0 && s.Match != 0 {
			return "", fmt.Errorf("dtf stats: %s hit replay but records %v of matching", filepath.Base(f), s.Match)
		}
	}
	return fmt.Sprintf("replay: %s was matched (miss, %.3f ms matching); the %d later step files replayed its schedule (hit, no matching)",
		filepath.Base(files[0]), float64(first.Match)/1e6, len(files)-1), nil
}

// readStats reads and summarises a run's statistics file.
func readStats(path string) ([]stats.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dtf stats: %w", err)
	}
	defer f.Close()
	recs, err := stats.Read(f)
	if err != nil {
		return nil, err
	}
	return stats.Summarize(recs), nil
}

// checkFiles checks a file-mode run: every step file exists and the last
// one passes ncvalidator.
func checkFiles(j job) ([]string, error) {
	files := stepFiles(j)
	if len(files) == 0 {
		return nil, errNoSteps
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("file mode: %w", err)
		}
		total += st.Size()
	}
	report := []string{fmt.Sprintf("file mode: %d step files on disk, %.1f MB", len(files), float64(total)/1e6)}
	last := files[len(files)-1]
	out, err := exec.Command("ncvalidator", last).CombinedOutput()
	msg := strings.TrimSpace(string(out))
	if err != nil {
		return report, fmt.Errorf("ncvalidator %s: %v: %s", last, err, msg)
	}
	return append(report, "ncvalidator: "+msg), nil
}
