// Package cluster builds a virtual cluster on one Linux host for multi-node
// tests. Each node is a set of namespaces (network, hostname, mounts) held
// open by one sleeping process, with its own loopback, address, hostname,
// /etc/hosts, /tmp and /dev/shm. The nodes' veth pairs join a bridge that
// lives in a switch namespace of its own, so the host's network is never
// touched and only the cluster's private addresses are used. Processes enter
// a node with nsenter. It needs root.
package cluster

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpilaunch"
)

// Subnet is the cluster's private /24: node i (from 1) has Subnet.(10+i).
// It exists only inside the cluster's namespaces, so it cannot collide
// with the host's networks nor with another cluster on the same host.
const Subnet = "10.251.77"

// Cluster is a running virtual cluster. Close tears it down.
type Cluster struct {
	Nodes []*Node
	// Work is a directory every node sees at the same path (it is not under
	// /tmp, which is private to each node): binaries, configs, scripts.
	Work string

	sw    *exec.Cmd // holds the switch namespace
	swPID int

	mu    sync.Mutex
	procs []*Proc
}

// Node is one node of the cluster.
type Node struct {
	Index int    // 1-based
	Name  string // its hostname
	IP    string // its address on the cluster network

	c      *Cluster
	holder *exec.Cmd
	pid    int
}

// New starts n nodes joined by a bridge. work must be a directory outside
// /tmp. On error everything started is torn down.
func New(n int, work string) (c *Cluster, err error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("cluster: needs root (namespaces, veth pairs, mounts)")
	}
	c = &Cluster{Work: work}
	defer func() {
		if err != nil {
			c.Close()
			c = nil
		}
	}()
	var hosts strings.Builder
	hosts.WriteString("127.0.0.1\tlocalhost\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&hosts, "%s.%d\tnode%d\n", Subnet, 10+i, i)
	}
	hostsFile := filepath.Join(work, "hosts")
	if err := os.WriteFile(hostsFile, []byte(hosts.String()), 0o644); err != nil {
		return nil, err
	}
	if c.sw, c.swPID, err = hold([]string{"--net"}, "ip link set lo up && ip link add br0 type bridge && ip link set br0 up"); err != nil {
		return nil, fmt.Errorf("cluster: switch: %w", err)
	}
	for i := 1; i <= n; i++ {
		nd := &Node{Index: i, Name: fmt.Sprintf("node%d", i), IP: fmt.Sprintf("%s.%d", Subnet, 10+i), c: c}
		script := fmt.Sprintf("hostname %s && mount -t tmpfs -o mode=1777 tmpfs /tmp && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && mount --bind %s /etc/hosts", nd.Name, hostsFile)
		if nd.holder, nd.pid, err = hold([]string{"--net", "--uts", "--mount", "--propagation", "private"}, script); err != nil {
			return nil, fmt.Errorf("cluster: %s: %w", nd.Name, err)
		}
		c.Nodes = append(c.Nodes, nd)
		// The pair is made in the switch namespace; one end moves to the node.
		port, eth := fmt.Sprintf("p%d", i), fmt.Sprintf("e%d", i)
		if err := c.sh(c.swPID, fmt.Sprintf("ip link add %s type veth peer name %s && ip link set %s netns %d && ip link set %s master br0 up", port, eth, eth, nd.pid, port)); err != nil {
			return nil, err
		}
		if err := c.sh(nd.pid, fmt.Sprintf("ip link set lo up && ip link set %s name eth0 && ip addr add %s/24 dev eth0 && ip link set eth0 up", eth, nd.IP)); err != nil {
			return nil, err
		}
	}
	var m strings.Builder
	for _, nd := range c.Nodes {
		fmt.Fprintf(&m, "%s %d\n%s %d\n", nd.IP, nd.pid, nd.Name, nd.pid)
	}
	if err := os.WriteFile(filepath.Join(work, "nodes"), []byte(m.String()), 0o644); err != nil {
		return nil, err
	}
	return c, nil
}

// hold starts a process in new namespaces that runs script, reports ready
// and sleeps until killed. It dies with the test process.
func hold(unshare []string, script string) (*exec.Cmd, int, error) {
	args := append(unshare, "--", "/bin/sh", "-c", script+" && echo ready && exec sleep infinity")
	cmd := exec.Command("unshare", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, 0, fmt.Errorf("unshare %v: %s", unshare, strings.TrimSpace(stderr.String()))
	}
	return cmd, cmd.Process.Pid, nil
}

// sh runs a shell command in the network namespace of pid.
func (c *Cluster) sh(pid int, script string) error {
	out, err := exec.Command("nsenter", "-t", strconv.Itoa(pid), "-n", "--", "/bin/sh", "-c", script).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cluster: %s: %v: %s", script, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Tmp returns the host path of path inside the node's private /tmp (or
// any other path of the node's mount namespace), for checking files.
func (n *Node) Tmp(path string) string {
	return filepath.Join(fmt.Sprintf("/proc/%d/root", n.pid), path)
}

// LinkDown takes the node's cable out of the switch; LinkUp plugs it back.
func (n *Node) LinkDown() error {
	return n.c.sh(n.c.swPID, fmt.Sprintf("ip link set p%d down", n.Index))
}

// LinkUp plugs the node's cable back into the switch.
func (n *Node) LinkUp() error { return n.c.sh(n.c.swPID, fmt.Sprintf("ip link set p%d up", n.Index)) }

// KillAll kills every process of the node (the node dies) and returns how
// many there were; the namespaces and the node's /tmp survive, like a
// node's disks across a reboot.
func (n *Node) KillAll() int {
	pids := n.processes()
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	return len(pids)
}

// processes lists the node's processes (by network namespace) except the
// holder.
func (n *Node) processes() []int {
	want, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", n.pid))
	if err != nil {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == n.pid {
			continue
		}
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", p)); err == nil && ns == want {
			out = append(out, p)
		}
	}
	return out
}

// Close kills every process of every node, then the nodes and the switch.
func (c *Cluster) Close() {
	c.mu.Lock()
	procs := c.procs
	c.mu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
	for _, n := range c.Nodes {
		n.KillAll()
		if n.holder != nil {
			n.holder.Process.Kill()
			n.holder.Wait()
		}
	}
	if c.sw != nil {
		c.sw.Process.Kill()
		c.sw.Wait()
	}
}

// Proc is a process running on a node.
type Proc struct {
	Node *Node
	Cmd  *exec.Cmd
	out  mpilaunch.OutputBuffer
	done chan struct{}
	err  error
}

// Command prepares name with args to run on the node, in the node's
// namespaces, with env added to the test's environment and Work as its
// directory.
func (n *Node) Command(env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command("nsenter", append([]string{"-t", strconv.Itoa(n.pid), "-n", "-u", "-m", "--", name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = n.c.Work
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	return cmd
}

// Start runs name on the node in the background; its stdout and stderr
// are kept for Output.
func (n *Node) Start(env []string, name string, args ...string) (*Proc, error) {
	p := &Proc{Node: n, Cmd: n.Command(env, name, args...), done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.out, &p.out
	if err := p.Cmd.Start(); err != nil {
		return nil, err
	}
	n.c.mu.Lock()
	n.c.procs = append(n.c.procs, p)
	n.c.mu.Unlock()
	go func() {
		p.err = p.Cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Run runs name on the node and waits at most timeout; a process still
// running then is killed and reported.
func (n *Node) Run(timeout time.Duration, env []string, name string, args ...string) (string, error) {
	p, err := n.Start(env, name, args...)
	if err != nil {
		return "", err
	}
	err = p.Wait(timeout)
	return p.Output(), err
}

// Wait waits at most timeout for the process; at the timeout it kills its
// process group and says so.
func (p *Proc) Wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		p.Kill()
		return fmt.Errorf("%s on %s: still running after %v (killed)", filepath.Base(p.Cmd.Args[len(p.Cmd.Args)-1]), p.Node.Name, timeout)
	}
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Kill kills the process's group and waits for the process.
func (p *Proc) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// Output returns what the process wrote so far.
func (p *Proc) Output() string { return p.out.String() }
