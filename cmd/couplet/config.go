package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/couplet-hpc/couplet/dtf"
)

var configCmd = &cobra.Command{
	Use:   "config",
	Short: "work with DTF configuration files",
}

// configCheckEnv makes `config check` apply the environment overrides too.
var configCheckEnv bool

var configCheckCmd = &cobra.Command{
	Use:   "check FILE",
	Short: "validate a DTF config file, reporting every error with its line",
	Long: `Check parses a DTF INI configuration the way dtf.Init does and prints OK with a
summary, or every problem as FILE:LINE: key "k": message and exits with status 1.
With --env the environment overrides (DTF_TIMEOUT, COUPLET_MODE, ...) are applied
and checked as well.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		c, err := dtf.LoadConfig(args[0])
		if err == nil && configCheckEnv {
			err = c.ApplyEnv(os.Getenv)
		}
		if err != nil {
			n := printErrors(cmd.ErrOrStderr(), err)
			return fmt.Errorf("%s: %d problem(s)", args[0], n)
		}
		printConfigSummary(cmd.OutOrStdout(), c)
		return nil
	},
}

func init() {
	configCheckCmd.Flags().BoolVar(&configCheckEnv, "env", false, "apply environment overrides before checking")
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

func printConfigSummary(w io.Writer, c *dtf.Config) {
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	matchers := "auto (1 per " + fmt.Sprint(c.MaxWorkgroupSize) + " writer ranks)"
	if c.NumMatchers > 0 {
		matchers = fmt.Sprint(c.NumMatchers)
	}
	partition := string(c.IODBBuildMode)
	if c.IODBRange > 0 {
		partition += fmt.Sprintf(" (iodb_range %d)", c.IODBRange)
	}
	stats := c.StatsPath
	if stats == "" {
		stats = "off"
	}
	fmt.Fprintf(w, "OK: %s\n", c.Path)
	fmt.Fprintf(w, "  components: %s\n", strings.Join(c.CompNames, ", "))
	fmt.Fprintf(w, "  matching: %s matchers, partition %s, buffer_data %s, unwritten %s\n",
		matchers, partition, onOff(c.BufferData), c.Unwritten)
	fmt.Fprintf(w, "  transport %s, timeout %v, progress thread %s, stats %s\n",
		c.Transport, c.Timeout, onOff(c.ProgressThread), stats)
	if len(c.EnvApplied) > 0 {
		fmt.Fprintf(w, "  environment: %s\n", strings.Join(c.EnvApplied, " "))
	}
	for _, f := range c.Files {
		fmt.Fprintf(w, "  [FILE] line %d: %s  %s -> %s  mode %s  sessions %d  replay %s",
			f.Line, f.Filename, f.Comp1, f.Comp2, f.Mode, f.NumSessions, onOff(f.ReplayIO))
		if len(f.Exclude) > 0 {
			ex := make([]string, len(f.Exclude))
			for i, x := range f.Exclude {
				ex[i] = x.String()
			}
			fmt.Fprintf(w, "  exclude %s", strings.Join(ex, ", "))
		}
		fmt.Fprintln(w)
	}
}
