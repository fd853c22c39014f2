package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/kvs/etcdkv/pki"
)

// TestJoinConfig: an etcd off loopback is joined only with credentials, or when the
// operator accepts an open one; the cluster directory supplies credentials by default.
func TestJoinConfig(t *testing.T) {
	dir := t.TempDir() + "/cluster"
	if _, err := pki.Init(dir); err != nil {
		t.Fatal(err)
	}
	pw := t.TempDir() + "/pw"
	writeFile(t, pw, "etcd-password\n")
	for _, c := range []struct {
		url       string
		cluster   string
		insecure  bool
		ok, creds bool
	}{
		{"etcd://127.0.0.1:2379", "", false, true, false},
		{"etcd://localhost:2379,127.0.0.2:2379", "", false, true, false},
		{"etcd://10.0.0.1:2379", "", false, false, false},
		{"etcd://127.0.0.1:2379,10.0.0.1:2379", "", false, false, false},
		{"etcd://10.0.0.1:2379", "", true, true, false},
		{"etcd://10.0.0.1:2379", dir, false, true, true},
		{"etcd://10.0.0.1:2379?cluster=" + dir, "", false, true, true},
		{"etcd://root@10.0.0.1:2379?password-file=" + pw, "", false, true, true},
		{"etcd://root:secret@10.0.0.1:2379", "", false, false, false},
		{"http://10.0.0.1:2379", dir, false, false, false},
	} {
		a := &Agent{opts: Options{ClusterDir: c.cluster, InsecureKVS: c.insecure}}
		cfg, err := a.joinConfig(c.url)
		if (err == nil) != c.ok {
			t.Errorf("joinConfig(%q, cluster %q, insecure %v) = %v, want ok %v", c.url, c.cluster, c.insecure, err, c.ok)
			continue
		}
		if err == nil && cfg.Secured() != c.creds {
			t.Errorf("joinConfig(%q): credentials %v, want %v", c.url, cfg.Secured(), c.creds)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("error repeats the password: %v", err)
		}
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
