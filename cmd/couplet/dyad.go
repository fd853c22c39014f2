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

// dyadEnvHelp lists the variables every dyad subcommand reads; a flag, when given,
// overrides its variable.
const dyadEnvHelp = `
Environment (a flag, when given, overrides its variable):
  DYAD_KVS_NAMESPACE            KVS namespace (required; --namespace)
  DYAD_PATH_PRODUCER            producer managed directory (--producer)
  DYAD_PATH_CONSUMER            consumer managed directory (--consumer)
  DYAD_PATH_RELATIVE            relative paths are under the managed directory, not
                                the working directory (--relative)
  DYAD_DTL_MODE                 FLUX_RPC (rpc, default) or UCX (--dtl)
  DYAD_SHARED_STORAGE           synchronise only, never transfer
  DYAD_ASYNC_PUBLISH            publish in the background
  DYAD_FSYNC_WRITE              fsync a produced file before publishing it
  DYAD_KEY_DEPTH, DYAD_KEY_BINS key shape (default 3 and 1024)
  DYAD_SYNC_DEBUG               log every step
  DYAD_SYNC_CHECK               re-verify a local copy's checksum before using it
  COUPLET_AGENT_SOCKET          the local agent's socket (--socket; default derived
                                from the managed directory)
  COUPLET_DYAD_TIMEOUT          wait for metadata and locks (--timeout; default 60s)
  COUPLET_DYAD_TRANSFER_TIMEOUT bound on one staging (default 10m)`

// dyadFlags maps each flag of the dyad commands to the variable it overrides.
var dyadFlags = []struct{ name, env, usage string }{
	{"namespace", "DYAD_KVS_NAMESPACE", "KVS namespace"},
	{"producer", "DYAD_PATH_PRODUCER", "producer managed directory"},
	{"consumer", "DYAD_PATH_CONSUMER", "consumer managed directory"},
	{"socket", "COUPLET_AGENT_SOCKET", "the local agent's Unix socket"},
	{"timeout", "COUPLET_DYAD_TIMEOUT", "how long to wait for metadata and locks, e.g. 30s"},
	{"dtl", "DYAD_DTL_MODE", "data transport of stagings: FLUX_RPC (rpc) or UCX"},
}

func init() {
	cmd := &cobra.Command{
		Use:   "dyad",
		Short: "produce, consume and inspect staged files (DYAD_* environment or flags, local agent)",
		Long: `Produce, consume and inspect files staged by the node agents, as DYAD's
wrappers do, configured by the DYAD_* environment or the flags below.
` + dyadEnvHelp,
	}
	pf := cmd.PersistentFlags()
	for _, f := range dyadFlags {
		pf.String(f.name, "", f.usage+" (overrides $"+f.env+")")
	}
	pf.Bool("relative", false, "relative paths are under the managed directory (overrides $DYAD_PATH_RELATIVE)")
	client := func(c *cobra.Command) (*dyad.Client, error) {
		flags := map[string]string{}
		for _, f := range dyadFlags {
			if fl := c.Flags().Lookup(f.name); fl != nil && fl.Changed {
				flags[f.env] = fl.Value.String()
			}
		}
		if fl := c.Flags().Lookup("relative"); fl != nil && fl.Changed {
			flags["DYAD_PATH_RELATIVE"] = fl.Value.String()
		}
		cfg, err := dyad.ConfigFrom(func(name string) (string, bool) {
			if v, ok := flags[name]; ok {
				return v, true
			}
			return os.LookupEnv(name)
		})
		if err != nil {
			return nil, err
		}
		dc, err := dyad.New(cfg)
		if err != nil {
			return nil, err
		}
		dc.SetProgress(termProgress(os.Stderr))
		return dc, nil
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "produce PATH...",
		Short: "publish files under DYAD_PATH_PRODUCER",
		Long: "Publishes each file, which must lie under the producer managed directory.\n" +
			"A file over 64 MiB shows a progress bar when standard error is a terminal.\n" + dyadEnvHelp,
		Args: needArgs(1, -1, "the PATH of a file to produce"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client(cmd)
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
		Long: "Waits until each file is produced, then stages it into the consumer managed directory.\n" +
			"A file over 64 MiB shows a progress bar when standard error is a terminal.\n" + dyadEnvHelp,
		Args: needArgs(1, -1, "the PATH of a file to consume"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client(cmd)
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
		Long:  "Lists the published files whose path (relative to the managed directory) starts with PATH-PREFIX.\n" + dyadEnvHelp,
		Args:  needArgs(0, 1, "nothing"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client(cmd)
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
		Long:  "Shows a file's metadata and which locator level (local, agent, kvs) answered, without waiting.\n" + dyadEnvHelp,
		Args:  needArgs(1, 1, "the PATH of a file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client(cmd)
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
