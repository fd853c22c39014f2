package dyad_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/pki"
)

// TestEtcdNeedsClientCert: the agent's embedded etcd serves only TLS clients presenting a
// certificate of the cluster CA. Without one, a client can neither read nor write; the
// cluster directory is its owner's only.
func TestEtcdNeedsClientCert(t *testing.T) {
	prod := startNode(t, "", nil)
	produce(t, prod, "r.bin", []byte("record"))
	u, err := url.Parse(prod.agent.KVSEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	dir := pki.Dir(u.Query().Get("cluster"))
	caPEM, err := os.ReadFile(dir.CA())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	for _, c := range []struct {
		name string
		cfg  etcdkv.Config
	}{
		{"plain", etcdkv.Config{Endpoints: []string{u.Host}}},
		{"TLS without a client certificate", etcdkv.Config{Endpoints: []string{u.Host}, TLS: &tls.Config{RootCAs: pool}}},
		{"TLS with a certificate of another CA", etcdkv.Config{Endpoints: []string{u.Host}, TLS: otherCA(t, pool)}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		s, err := etcdkv.DialConfig(ctx, c.cfg)
		if err == nil {
			// Dialled: every read and write must still fail.
			if es, _, err := s.List(ctx, "/"); err == nil {
				t.Errorf("%s: listed %d records", c.name, len(es))
			}
			if _, err := s.Put(ctx, "/dyad/test/x", []byte("x")); err == nil {
				t.Errorf("%s: wrote a record", c.name)
			}
			s.Close()
		}
		cancel()
	}
	// With the cluster directory, the records are there.
	s, err := kvs.Open(context.Background(), prod.agent.KVSEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	es, _, err := s.List(context.Background(), "/dyad/")
	if err != nil || len(es) != 1 {
		t.Fatalf("member's list: %d records, %v; want 1", len(es), err)
	}
	for _, p := range []string{string(dir), dir.Key()} {
		st, _ := os.Stat(p)
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", p, st.Mode().Perm())
		}
	}
	if out, err := asNobody(t, "cat", dir.Key()).CombinedOutput(); err == nil || strings.Contains(string(out), "PRIVATE") {
		t.Errorf("uid 65534 read the member key: %s", out)
	}
}

// otherCA is a TLS client configuration trusting pool and presenting a certificate of
// an unrelated CA.
func otherCA(t *testing.T, pool *x509.CertPool) *tls.Config {
	d, err := pki.Init(t.TempDir() + "/other")
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	c.RootCAs = pool
	return c
}
