package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/couplet-hpc/couplet/dtf/config"
)

var configCmd = &cobra.Command{
	Use:   "config",
	Short: "work with DTF configuration files",
}

// configCheckEnv makes `config check` apply the environment overrides too.
var configCheckEnv bool

// configCheckOpened lists the paths a program opens, to warn about [FILE] sections
// none of them selects.
var configCheckOpened []string

var configCheckCmd = &cobra.Command{
	Use:   "check FILE",
	Short: "validate a DTF config file, reporting every error with its line",
	Long: `Check parses a DTF INI configuration the way dtf.Init does and prints OK with a
summary, or every problem as FILE:LINE: key "k": message and exits with status 1.
With --env the environment overrides (DTF_TIMEOUT, COUPLET_MODE, ...) are applied
and checked as well. Keys and variables of the original DTF that couplet accepts but
does not act on are listed as "accepted for DTF compatibility, has no effect here".
With --opened PATH (repeatable) it warns about every [FILE] section that none of the
given paths selects, which is how a filename that couples nothing shows up before a
run.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		c, err := config.LoadConfig(args[0])
		if err == nil && configCheckEnv {
			err = c.ApplyEnv(os.Getenv)
		}
		if err != nil {
			n := printErrors(cmd.ErrOrStderr(), err)
			return fmt.Errorf("%s: %d problem(s)", args[0], n)
		}
		c.WriteSummary(cmd.OutOrStdout())
		if len(configCheckOpened) > 0 {
			for _, p := range configCheckOpened {
				if f, ok := c.FileFor(p); ok {
					fmt.Fprintf(cmd.OutOrStdout(), "  %s -> [FILE] line %d\n", p, f.Line)
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "  %s -> not coupled\n", p)
				}
			}
			c.WriteUnmatched(cmd.ErrOrStderr(), "", configCheckOpened)
		}
		return nil
	},
}

func init() {
	configCheckCmd.Flags().BoolVar(&configCheckEnv, "env", false, "apply environment overrides before checking")
	configCheckCmd.Flags().StringArrayVar(&configCheckOpened, "opened", nil, "a path the program opens (repeatable): warn about [FILE] sections none selects")
	configCmd.AddCommand(configCheckCmd)
	root.AddCommand(configCmd)
}

// printErrors prints each error of a joined error on its own line and returns how many.
func printErrors(w io.Writer, err error) int {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		fmt.Fprintln(w, e)
	}
	return len(errs)
}
