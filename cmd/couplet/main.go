// Command couplet is the command-line front end: the per-node agent, file staging,
// config checks, statistics and benchmarks.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

// root is the top-level command; subcommands register themselves in init functions
// of their own files.
var root = &cobra.Command{
	Use:           "couplet",
	Short:         "couple HPC components through the I/O they already do",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "couplet:", err)
		os.Exit(1)
	}
}
