package cluster

import (
	"fmt"
	"strings"
	"time"
)

// Etcd is an etcd cluster of Debian's etcd server, one member per node.
type Etcd struct {
	c       *Cluster
	members []*Proc
	token   string
}

// etcdArgs is member i's command line. Ports are fixed: each node has its
// own network stack.
func (e *Etcd) etcdArgs(i int) []string {
	n := e.c.Nodes[i]
	var initial []string
	for _, m := range e.c.Nodes {
		initial = append(initial, fmt.Sprintf("%s=http://%s:2380", m.Name, m.IP))
	}
	return []string{"--name", n.Name, "--data-dir", "/tmp/etcd",
		"--listen-client-urls", "http://" + n.IP + ":2379", "--advertise-client-urls", "http://" + n.IP + ":2379",
		"--listen-peer-urls", "http://" + n.IP + ":2380", "--initial-advertise-peer-urls", "http://" + n.IP + ":2380",
		"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
		"--initial-cluster-token", e.token,
		// A loaded 2-core host: keep elections calm.
		"--heartbeat-interval", "100", "--election-timeout", "1000"}
}

// StartEtcd starts one member on every node and waits until the cluster
// is healthy.
func (c *Cluster) StartEtcd(token string, timeout time.Duration) (*Etcd, error) {
	e := &Etcd{c: c, token: token, members: make([]*Proc, len(c.Nodes))}
	for i := range c.Nodes {
		if err := e.Start(i); err != nil {
			return nil, err
		}
	}
	return e, e.WaitHealthy(timeout, 0, 1, 2)
}

// Start (re)starts member i on its node, with the data it had.
func (e *Etcd) Start(i int) error {
	p, err := e.c.Nodes[i].Start(nil, "etcd", e.etcdArgs(i)...)
	if err != nil {
		return err
	}
	e.members[i] = p
	return nil
}

// Kill kills member i.
func (e *Etcd) Kill(i int) { e.members[i].Kill() }

// Endpoints returns the client URL list for couplet's --kvs (etcd://...).
func (e *Etcd) Endpoints() string {
	var eps []string
	for _, n := range e.c.Nodes {
		eps = append(eps, n.IP+":2379")
	}
	return "etcd://" + strings.Join(eps, ",")
}

// WaitHealthy waits until the given members answer as healthy, asking
// etcdctl from each member's own node.
func (e *Etcd) WaitHealthy(timeout time.Duration, members ...int) error {
	deadline := time.Now().Add(timeout)
	for _, i := range members {
		n := e.c.Nodes[i]
		for {
			out, err := n.Run(10*time.Second, nil, "etcdctl", "--endpoints", "http://"+n.IP+":2379", "--command-timeout", "3s", "endpoint", "health")
			if err == nil && strings.Contains(out, "is healthy") {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("etcd member %s not healthy after %v: %v: %s\nmember output:\n%s", n.Name, timeout, err, out, tail(e.members[i].Output(), 20))
			}
			select {
			case <-e.members[i].Done():
				return fmt.Errorf("etcd member %s exited: %s", n.Name, tail(e.members[i].Output(), 20))
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
