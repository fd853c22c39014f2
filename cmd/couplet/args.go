package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// needArgs is cobra.MinimumNArgs (max < 0) or RangeArgs with an error that names the
// command and what it lacks.
func needArgs(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < min:
			return fmt.Errorf("%s: missing %s (usage: %s)", name(cmd), what, cmd.UseLine())
		case max >= 0 && len(args) > max:
			return fmt.Errorf("%s: takes at most %d argument(s), got %d (usage: %s)", name(cmd), max, len(args), cmd.UseLine())
		}
		return nil
	}
}

// name is a command's path without the program's name, which main's error prefix gives.
func name(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}
