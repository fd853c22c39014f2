package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/spf13/cobra"
)

func init() {
	cmd := &cobra.Command{
		Use:   "dyad",
		Short: "produce, consume and inspect staged files (DYAD_* environment, local agent)",
	}
	client := func() (*dyad.Client, error) {
		cfg, err := dyad.ConfigFromEnv()
		if err != nil {
			return nil, err
		}
		return dyad.New(cfg)
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "produce PATH...",
		Short: "publish files under DYAD_PATH_PRODUCER",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			for _, p := range args {
				m, err := c.Produce(p)
				if err != nil {
					return err
				}
				if m != nil {
					fmt.Printf("%s\tversion %d\t%d bytes\tkey %s\n", m.Path, m.Version, m.Size, m.Key)
				}
			}
			return c.Close()
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "consume PATH...",
		Short: "wait for files and stage them into DYAD_PATH_CONSUMER",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			for _, p := range args {
				start := time.Now()
				local, err := c.Consume(p)
				if err != nil {
					return err
				}
				fmt.Printf("%s\t%v\n", local, time.Since(start).Round(time.Microsecond))
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "ls [PATH-PREFIX]",
		Short: "list the files published in DYAD_KVS_NAMESPACE whose path starts with PATH-PREFIX",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			prefix := ""
			if len(args) == 1 {
				prefix = args[0]
			}
			// Keys are hashes of the paths, so the prefix is matched against the paths.
			all, err := c.List(context.Background(), "")
			if err != nil {
				return err
			}
			var ms []*dyad.Meta
			for _, m := range all {
				if strings.HasPrefix(m.Path, strings.TrimPrefix(prefix, "./")) {
					ms = append(ms, m)
				}
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PATH\tVERSION\tSIZE\tOWNER\tKEY")
			for _, m := range ms {
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\n", m.Path, m.Version, m.Size, m.Owner, m.Key)
			}
			return w.Flush()
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "stat PATH",
		Short: "show a file's metadata and which locator level answered",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			m, level, err := c.Stat(context.Background(), args[0])
			if err != nil {
				return err
			}
			fmt.Printf("path:     %s\nkey:      %s\nversion:  %d\nsize:     %d\nchecksum: %08x (crc32c)\nowner:    %s (%s)\nlevel:    %v\n",
				m.Path, m.Key, m.Version, m.Size, m.Checksum, m.Owner, m.Node, level)
			return nil
		},
	})
	root.AddCommand(cmd)
}
