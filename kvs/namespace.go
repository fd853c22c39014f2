package kvs

import (
	"context"
	"net/url"
	"strings"
)

// Namespace returns a view of kv in which every key is prefixed by the path built from
// the given segments. Each segment is escaped, so a segment containing "/" or other
// separators cannot reach outside its namespace.
func Namespace(kv KV, segments ...string) KV {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(EscapeSegment(s))
	}
	b.WriteByte('/')
	return &nsKV{kv: kv, prefix: b.String()}
}

// EscapeSegment escapes s for use as one path segment of a KVS key.
func EscapeSegment(s string) string {
	if s == "" {
		return "%00"
	}
	return url.PathEscape(s)
}

type nsKV struct {
	kv     KV
	prefix string
}

func (n *nsKV) Put(ctx context.Context, key string, val []byte) (int64, error) {
	return n.kv.Put(ctx, n.prefix+key, val)
}

func (n *nsKV) Get(ctx context.Context, key string) ([]byte, bool, int64, error) {
	return n.kv.Get(ctx, n.prefix+key)
}

func (n *nsKV) List(ctx context.Context, prefix string) ([]Entry, int64, error) {
	es, rev, err := n.kv.List(ctx, n.prefix+prefix)
	for i := range es {
		es[i].Key = strings.TrimPrefix(es[i].Key, n.prefix)
	}
	return es, rev, err
}

func (n *nsKV) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, error)) ([]byte, error) {
	return n.kv.Update(ctx, n.prefix+key, fn)
}

func (n *nsKV) Delete(ctx context.Context, key string) error {
	return n.kv.Delete(ctx, n.prefix+key)
}

func (n *nsKV) Watch(ctx context.Context, prefix string, fromRev int64) (<-chan Event, error) {
	in, err := n.kv.Watch(ctx, n.prefix+prefix, fromRev)
	if err != nil {
		return nil, err
	}
	out := make(chan Event, 16)
	go func() {
		defer close(out)
		for ev := range in {
			ev.Key = strings.TrimPrefix(ev.Key, n.prefix)
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// Close does nothing: the namespace does not own the underlying store.
func (n *nsKV) Close() error { return nil }
