package embedded

import (
	"context"
	"log/slog"
	"sort"
	"sync/atomic"

	"go.uber.org/zap/zapcore"
)

// slogCore is a zapcore.Core that hands etcd's records to a slog.Handler, so that the
// server's warnings appear in its host's log stream instead of as JSON on stderr.
type slogCore struct {
	h     slog.Handler
	min   zapcore.Level
	attrs []slog.Attr
	// closing drops every record once the server is being stopped: etcd reports its
	// listeners closing at error level, which is routine then.
	closing *atomic.Bool
}

// newSlogCore forwards records at min and above to h, each marked component=etcd.
func newSlogCore(h slog.Handler, min zapcore.Level) *slogCore {
	return &slogCore{h: h.WithAttrs([]slog.Attr{slog.String("component", "etcd")}), min: min, closing: new(atomic.Bool)}
}

// slogLevel maps zap's levels onto slog's; DPanic, Panic and Fatal are errors.
func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	}
	return slog.LevelError
}

func (c *slogCore) Enabled(l zapcore.Level) bool {
	return l >= c.min && !c.closing.Load() && c.h.Enabled(context.Background(), slogLevel(l))
}

func (c *slogCore) With(fs []zapcore.Field) zapcore.Core {
	d := *c
	d.attrs = append(append([]slog.Attr(nil), c.attrs...), attrs(fs)...)
	return &d
}

// chosen are etcd's warnings about settings this package chose on purpose for a
// single-member store on loopback: not the operator's to act on, so not logged.
var chosen = map[string]bool{
	"Running http and grpc server on single port. This is not recommended for production.": true,
	"simple token is not cryptographically signed":                                         true,
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) && !chosen[e.Message] {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fs []zapcore.Field) error {
	r := slog.NewRecord(e.Time, slogLevel(e.Level), e.Message, 0)
	r.AddAttrs(c.attrs...)
	r.AddAttrs(attrs(fs)...)
	return c.h.Handle(context.Background(), r)
}

func (c *slogCore) Sync() error { return nil }

// attrs renders zap fields as slog attributes, in key order.
func attrs(fs []zapcore.Field) []slog.Attr {
	if len(fs) == 0 {
		return nil
	}
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fs {
		f.AddTo(enc)
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]slog.Attr, 0, len(keys))
	for _, k := range keys {
		out = append(out, slog.Any(k, enc.Fields[k]))
	}
	return out
}
