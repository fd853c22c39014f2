package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// rshAgent is Open MPI's remote shell for the cluster: it runs the daemon's
// command line on the node named by the host argument, inside that node's
// namespaces, as ssh would on a real cluster.
const rshAgent = `#!/bin/sh
# Open MPI rsh agent of the couplet virtual cluster: HOST COMMAND...
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
host=$1; shift
pid=$(awk -v h="$host" '$1 == h { print $2 }' %s)
if [ -z "$pid" ]; then echo "rsh: no node $host in the virtual cluster" >&2; exit 255; fi
exec nsenter -t "$pid" -n -u -m -- /bin/sh -c "$*"
`

// MPIEnv writes the rsh agent and a hostfile with slots per node, and
// returns the environment for mpirun: launch through the agent, shared
// memory within a node and TCP between nodes, on the cluster network only.
func (c *Cluster) MPIEnv(slots int) ([]string, error) {
	agent := filepath.Join(c.Work, "rsh")
	if err := os.WriteFile(agent, []byte(fmt.Sprintf(rshAgent, filepath.Join(c.Work, "nodes"))), 0o755); err != nil {
		return nil, err
	}
	var hf strings.Builder
	for _, n := range c.Nodes {
		fmt.Fprintf(&hf, "%s slots=%d\n", n.IP, slots)
	}
	hostfile := filepath.Join(c.Work, "hostfile")
	if err := os.WriteFile(hostfile, []byte(hf.String()), 0o644); err != nil {
		return nil, err
	}
	net := Subnet + ".0/24"
	return []string{
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_rmaps_base_oversubscribe=1",
		"OMPI_MCA_btl_vader_single_copy_mechanism=none",
		"OMPI_MCA_plm_rsh_agent=" + agent,
		"OMPI_MCA_plm_rsh_no_tree_spawn=1",
		"OMPI_MCA_orte_default_hostfile=" + hostfile,
		"OMPI_MCA_pml=ob1",
		"OMPI_MCA_btl=self,vader,tcp",
		"OMPI_MCA_btl_tcp_if_include=" + net,
		"OMPI_MCA_oob_tcp_if_include=" + net,
	}, nil
}
