// Package etcdkv is the etcd backend of kvs: a client of an etcd cluster (Dial, or
// kvs.Open("etcd://host:port,...")). It links only etcd's client; the server that
// a node agent or a test hosts lives in kvs/etcdkv/embedded.
package etcdkv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/pki"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func init() {
	kvs.Register("etcd", func(ctx context.Context, u *url.URL) (kvs.KV, error) {
		c, err := ConfigFromURL(u)
		if err != nil {
			return nil, err
		}
		return DialConfig(ctx, c)
	})
}

// Store is a kvs.KV backed by an etcd cluster.
type Store struct {
	c *clientv3.Client
	// endpoints names the cluster in errors.
	endpoints string
}

var _ kvs.KV = (*Store)(nil)

// Config says how to reach an etcd cluster.
type Config struct {
	// Endpoints are "host:port" (or full URLs).
	Endpoints []string
	// TLS, when set, is used on every connection (https endpoints).
	TLS *tls.Config
	// Username and Password authenticate with etcd's own auth, when set.
	Username, Password string
}

// Secured says whether c authenticates the client: a client certificate or etcd auth.
func (c Config) Secured() bool {
	return (c.TLS != nil && len(c.TLS.Certificates) > 0) || c.Username != ""
}

// ConfigFromURL reads an etcd:// URL: etcd://[user@]host:port,host:port[?options] with
// the options cluster=DIR (a cluster directory of kvs/etcdkv/pki: TLS with its member
// certificate), or ca=FILE, cert=FILE, key=FILE (TLS to an external etcd), and
// password-file=FILE (etcd auth for user; the password never goes in the URL).
func ConfigFromURL(u *url.URL) (Config, error) {
	c := Config{Endpoints: strings.Split(u.Host, ",")}
	q := u.Query()
	switch {
	case q.Get("cluster") != "":
		t, err := pki.Dir(q.Get("cluster")).ClientTLS()
		if err != nil {
			return c, err
		}
		c.TLS = t
	case q.Get("ca") != "" || q.Get("cert") != "":
		t := &tls.Config{MinVersion: tls.VersionTLS12}
		if ca := q.Get("ca"); ca != "" {
			b, err := os.ReadFile(ca)
			if err != nil {
				return c, fmt.Errorf("etcdkv: %w", err)
			}
			t.RootCAs = x509.NewCertPool()
			if !t.RootCAs.AppendCertsFromPEM(b) {
				return c, fmt.Errorf("etcdkv: no certificate in %s", ca)
			}
		}
		if cert := q.Get("cert"); cert != "" {
			kp, err := tls.LoadX509KeyPair(cert, q.Get("key"))
			if err != nil {
				return c, fmt.Errorf("etcdkv: %w", err)
			}
			t.Certificates = []tls.Certificate{kp}
		}
		c.TLS = t
	}
	if u.User != nil {
		c.Username = u.User.Username()
		if _, set := u.User.Password(); set {
			return c, errors.New("etcdkv: give the etcd password with password-file=FILE, not in the URL")
		}
		if pf := q.Get("password-file"); pf != "" {
			b, err := os.ReadFile(pf)
			if err != nil {
				return c, fmt.Errorf("etcdkv: %w", err)
			}
			c.Password = strings.TrimSpace(string(b))
		}
	}
	return c, nil
}

// Dial connects to the etcd endpoints ("host:port") without TLS or auth.
func Dial(ctx context.Context, endpoints []string) (*Store, error) {
	return DialConfig(ctx, Config{Endpoints: endpoints})
}

// reconnect is how the client retries a member it lost. gRPC's default backs off up to
// two minutes: after members were down for half a minute (quorum lost), the client
// would go on for tens of seconds with only the member that stayed, and lose every
// lease when that one is cut off next. Members that come back are used again within
// a second.
var reconnect = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
	MinConnectTimeout: 5 * time.Second,
}

// DialConfig connects as c says and checks that the cluster answers within 5 s (or
// ctx's deadline), so a wrong address or credential fails now with a clear error.
func DialConfig(ctx context.Context, c Config) (*Store, error) {
	endpoints := append([]string(nil), c.Endpoints...)
	scheme := "http://"
	if c.TLS != nil {
		scheme = "https://"
	}
	for i, e := range endpoints {
		if !strings.Contains(e, "://") {
			endpoints[i] = scheme + e
		}
	}
	cl, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
		TLS:         c.TLS,
		Username:    c.Username,
		Password:    c.Password,
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(reconnect)},
	})
	if err != nil {
		return nil, fmt.Errorf("etcdkv: connect %v: %w", endpoints, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cl.Get(cctx, "\x00couplet-ping"); err != nil {
		cl.Close()
		return nil, fmt.Errorf("etcdkv: etcd at %s is %w (no answer within 5s): %w", strings.Join(endpoints, ","), kvs.ErrUnreachable, err)
	}
	return &Store{c: cl, endpoints: strings.Join(c.Endpoints, ",")}, nil
}

// Endpoints returns the cluster's endpoints as they were given, comma-separated.
func (s *Store) Endpoints() string { return s.endpoints }

// fail wraps the error of op on key. When etcd did not answer (the deadline passed or
// no endpoint is reachable) the error wraps kvs.ErrUnreachable and names the endpoints.
func (s *Store) fail(op, key string, err error) error {
	what := op
	if key != "" {
		what = fmt.Sprintf("%s %q", op, key)
	}
	code := status.Code(err)
	if errors.Is(err, context.DeadlineExceeded) || code == codes.DeadlineExceeded || code == codes.Unavailable {
		return fmt.Errorf("etcdkv: %s: etcd at %s is %w (%v)", what, s.endpoints, kvs.ErrUnreachable, err)
	}
	return fmt.Errorf("etcdkv: %s: %w", what, err)
}

// Client returns the underlying etcd client.
func (s *Store) Client() *clientv3.Client { return s.c }

// Put implements kvs.KV.
func (s *Store) Put(ctx context.Context, key string, val []byte) (int64, error) {
	r, err := s.c.Put(ctx, key, string(val))
	if err != nil {
		return 0, s.fail("put", key, err)
	}
	return r.Header.Revision, nil
}

// Get implements kvs.KV.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, int64, error) {
	r, err := s.c.Get(ctx, key)
	if err != nil {
		return nil, false, 0, s.fail("get", key, err)
	}
	if len(r.Kvs) == 0 {
		return nil, false, r.Header.Revision, nil
	}
	return r.Kvs[0].Value, true, r.Header.Revision, nil
}

// List implements kvs.KV.
func (s *Store) List(ctx context.Context, prefix string) ([]kvs.Entry, int64, error) {
	r, err := s.c.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, 0, s.fail("list", prefix, err)
	}
	out := make([]kvs.Entry, len(r.Kvs))
	for i, kv := range r.Kvs {
		out[i] = kvs.Entry{Key: string(kv.Key), Value: kv.Value, ModRev: kv.ModRevision}
	}
	return out, r.Header.Revision, nil
}

// Update implements kvs.KV with a compare-and-swap transaction on the key's mod revision.
func (s *Store) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, error)) ([]byte, error) {
	for {
		r, err := s.c.Get(ctx, key)
		if err != nil {
			return nil, s.fail("update", key, err)
		}
		var old []byte
		var modRev int64
		found := len(r.Kvs) > 0
		if found {
			old, modRev = r.Kvs[0].Value, r.Kvs[0].ModRevision
		}
		nv, err := fn(old, found)
		if err != nil {
			return nil, err
		}
		t, err := s.c.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", modRev)).
			Then(clientv3.OpPut(key, string(nv))).
			Commit()
		if err != nil {
			return nil, s.fail("update", key, err)
		}
		if t.Succeeded {
			return nv, nil
		}
	}
}

// Delete implements kvs.KV.
func (s *Store) Delete(ctx context.Context, key string) error {
	if _, err := s.c.Delete(ctx, key); err != nil {
		return s.fail("delete", key, err)
	}
	return nil
}

// Watch implements kvs.KV.
func (s *Store) Watch(ctx context.Context, prefix string, fromRev int64) (<-chan kvs.Event, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix()}
	if fromRev > 0 {
		opts = append(opts, clientv3.WithRev(fromRev))
	}
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wch := s.c.Watch(wctx, prefix, opts...)
	out := make(chan kvs.Event, 64)
	go func() {
		defer cancel()
		defer close(out)
		for resp := range wch {
			if err := resp.Err(); err != nil {
				select {
				case out <- kvs.Event{Err: fmt.Errorf("etcdkv: watch %q: %w", prefix, err)}:
				case <-ctx.Done():
				}
				return
			}
			for _, ev := range resp.Events {
				e := kvs.Event{Key: string(ev.Kv.Key), Value: ev.Kv.Value, Rev: ev.Kv.ModRevision,
					Deleted: ev.Type == clientv3.EventTypeDelete}
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// Close implements kvs.KV.
func (s *Store) Close() error { return s.c.Close() }

// FreeLoopbackAddr returns a loopback "host:port" that was free a moment ago.
func FreeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("etcdkv: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}
