package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"sync"
	"time"
)

// openLogs builds the agent's log/slog logger. Records below warn go to the info log,
// warn and above to the error log (DYAD's -i and -e; the same writer when both are
// stderr, so each record is written once). The info log is stderr with Debug (which
// also enables debug records), else the -i file or nowhere. The embedded etcd logs
// into the same logger, marked component=etcd.
func (a *Agent) openLogs() error {
	// Both logs write to LogWriter through one lock: their handlers lock apart, and a
	// writer such as a bytes.Buffer takes no concurrent writes.
	lw := a.opts.LogWriter
	if lw != nil && lw != io.Discard {
		lw = &lockedWriter{w: lw}
	}
	open := func(p string, def io.Writer) (io.Writer, error) {
		if lw != nil {
			return lw, nil
		}
		if p == "" {
			return def, nil
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("agent: log file: %w", err)
		}
		a.logs = append(a.logs, f)
		return f, nil
	}
	var infoDef io.Writer
	if a.opts.Debug {
		infoDef = os.Stderr
	}
	iw, err := open(a.opts.InfoLog, infoDef)
	if err != nil {
		return err
	}
	ew, err := open(a.opts.ErrorLog, os.Stderr)
	if err != nil {
		return err
	}
	var h splitHandler
	// A writer that drops everything (io.Discard) gets no handler: records are then not
	// even formatted, which cost a staging tens of microseconds of CPU.
	if iw == io.Discard {
		iw = nil
	}
	if iw != nil {
		lvl := slog.LevelInfo
		if a.opts.Debug {
			lvl = slog.LevelDebug
		}
		h.info = slog.NewTextHandler(iw, &slog.HandlerOptions{Level: lvl})
	}
	if ew != io.Discard {
		h.errs = slog.NewTextHandler(ew, &slog.HandlerOptions{Level: slog.LevelWarn})
	}
	a.log = slog.New(h)
	a.info = slog.NewLogLogger(h, slog.LevelInfo)
	a.errs = slog.NewLogLogger(h, slog.LevelError)
	return nil
}

// lockedWriter serialises the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Logger returns the agent's logger.
func (a *Agent) Logger() *slog.Logger { return a.log }

// splitHandler sends records below warn to info and the others to errs; a nil
// handler drops its records.
type splitHandler struct{ info, errs slog.Handler }

func (h splitHandler) pick(l slog.Level) slog.Handler {
	if l >= slog.LevelWarn {
		return h.errs
	}
	return h.info
}

func (h splitHandler) Enabled(ctx context.Context, l slog.Level) bool {
	p := h.pick(l)
	return p != nil && p.Enabled(ctx, l)
}

func (h splitHandler) Handle(ctx context.Context, r slog.Record) error {
	if p := h.pick(r.Level); p != nil {
		return p.Handle(ctx, r)
	}
	return nil
}

func (h splitHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return splitHandler{info: with(h.info, func(x slog.Handler) slog.Handler { return x.WithAttrs(as) }),
		errs: with(h.errs, func(x slog.Handler) slog.Handler { return x.WithAttrs(as) })}
}

func (h splitHandler) WithGroup(g string) slog.Handler {
	return splitHandler{info: with(h.info, func(x slog.Handler) slog.Handler { return x.WithGroup(g) }),
		errs: with(h.errs, func(x slog.Handler) slog.Handler { return x.WithGroup(g) })}
}

func with(h slog.Handler, f func(slog.Handler) slog.Handler) slog.Handler {
	if h == nil {
		return nil
	}
	return f(h)
}

// transferAttrs are the log attributes of a finished transfer: the path, its size in
// bytes, the seconds it took and the rate in SI units.
func transferAttrs(path string, n int64, d time.Duration) []any {
	return []any{"path", path, "size", n, "seconds", math.Round(d.Seconds()*1e6) / 1e6, "rate", siRate(n, d)}
}

// siRate formats n bytes per d in SI units (kB/s is 1000 bytes a second).
func siRate(n int64, d time.Duration) string {
	if d <= 0 {
		return "inf"
	}
	r := float64(n) / d.Seconds()
	units := []string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s"}
	i := 0
	for r >= 999.95 && i < len(units)-1 {
		r /= 1000
		i++
	}
	return fmt.Sprintf("%.1f %s", r, units[i])
}
