package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
)

// configText is the dtf config coupling heat to analyze in mode (transfer
// or file). statsPath, when not empty, turns the statistics on. With
// transfer mode and no statistics it is examples/heat/couple.ini.
func configText(mode config.FileMode, statsPath string) string {
	var b strings.Builder
	b.WriteString(`# couplet heat example: heat writes one file per output step, analyze reads
# each with another decomposition. Launch as
#   mpirun -np 4 heat -config couple.ini : -np 3 analyze -config couple.ini
# mode = transfer moves the arrays by MPI messages and writes no file;
# mode = file writes real netCDF files, each read after the writer closed it.
# Every step file has the same I/O pattern: replay_io = 1 matches the first
# and replays that schedule for the others.
[INFO]
ncomp = 2
comp_name = heat
comp_name = analyze
timeout = 60s
`)
	if statsPath != "" {
		fmt.Fprintf(&b, "stats_path = %q\n", statsPath)
	}
	fmt.Fprintf(&b, `
[FILE]
filename = %s
comp1 = heat
comp2 = analyze
mode = %s
replay_io = 1
`, heatfile.Pattern, mode)
	return b.String()
}

// writeConfig writes the config to path and checks that dtf accepts it.
func writeConfig(path string, mode config.FileMode, statsPath string) error {
	if err := os.WriteFile(path, []byte(configText(mode, statsPath)), 0o644); err != nil {
		return err
	}
	_, err := config.LoadConfig(path)
	return err
}
