package ucx

import (
	"os"
	"testing"
)

// TestSetEnv: setEnv sets each setting and its restore puts back what was
// there before, a value or nothing.
func TestSetEnv(t *testing.T) {
	t.Setenv("UCX_TCP_RCVBUF", "3M") // set before
	t.Setenv("UCX_TCP_SNDBUF", "")
	os.Unsetenv("UCX_TCP_SNDBUF") // unset before (t.Setenv restores it after the test)
	restore := setEnv(map[string]string{"TCP_SNDBUF": "1M", "TCP_RCVBUF": "2M"})
	for name, want := range map[string]string{"UCX_TCP_SNDBUF": "1M", "UCX_TCP_RCVBUF": "2M"} {
		if got := os.Getenv(name); got != want {
			t.Errorf("while set: %s=%q, want %q", name, got, want)
		}
	}
	restore()
	if v, ok := os.LookupEnv("UCX_TCP_SNDBUF"); ok {
		t.Errorf("after restore: UCX_TCP_SNDBUF=%q, want it unset as before", v)
	}
	if got := os.Getenv("UCX_TCP_RCVBUF"); got != "3M" {
		t.Errorf("after restore: UCX_TCP_RCVBUF=%q, want 3M as before", got)
	}
}

// TestEnvScoped: Options.Env reaches UCX where it reads its settings, and
// only there: a value UCX cannot parse fails the call that reads it (a
// context's setting at NewContext, a transport's at NewWorker; UCX logs
// the error), and the environment is as before once they return, so a
// context without it, created next, opens its worker.
func TestEnvScoped(t *testing.T) {
	tcp := map[string]string{"TLS": "tcp"}
	for _, c := range []struct {
		name, key string
	}{
		{"context setting", "RNDV_SCHEME"},
		{"transport setting", "TCP_SNDBUF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("UCX_"+c.key, "")
			os.Unsetenv("UCX_" + c.key)
			ctx, err := NewContext(&Options{Config: tcp, Env: map[string]string{c.key: "not-a-value"}})
			if err == nil {
				w, werr := ctx.NewWorker(ThreadSerialized)
				if werr == nil {
					w.Close()
					t.Errorf("UCX_%s=not-a-value in Options.Env failed neither NewContext nor NewWorker: it did not reach UCX", c.key)
				}
				ctx.Close()
			}
			if v, ok := os.LookupEnv("UCX_" + c.key); ok {
				t.Fatalf("UCX_%s=%q left in the environment", c.key, v)
			}
			ctx, err = NewContext(&Options{Config: tcp})
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Close()
			w, err := ctx.NewWorker(ThreadSerialized)
			if err != nil {
				t.Fatalf("a context without Env: %v", err)
			}
			w.Close()
		})
	}
}
