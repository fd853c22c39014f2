package bench

import (
	"strings"
	"testing"
	"time"
)

func TestParseRounds(t *testing.T) {
	line := func(comp string, rep int, t0, t1 string) string {
		return "[1,0]<stdout>:ROUND comp=" + comp + " rep=" + string(rune('0'+rep)) + " bytes=4194304 t0=" + t0 + " t1=" + t1 + " ok=1\n"
	}
	for _, c := range []struct {
		name, out, wantErr string
		want               []float64
	}{
		// Round 1: r starts last (at 3 s) and w ends last (at 5 s): 2 s.
		{"paired", line("w", 1, "1000000000", "5000000000") + line("r", 1, "3000000000", "4000000000") +
			line("r", 2, "6000000000", "6500000000") + line("w", 2, "5500000000", "7000000000"), "", []float64{2, 1}},
		{"one side only", line("w", 1, "1", "2"), "one component only", nil},
		{"nothing", "hello\n", "no paired ROUND", nil},
		{"wrong size", "ROUND comp=w rep=1 bytes=9 t0=1 t1=2 ok=1\n", "moved 9 bytes", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseRounds(c.out, 4<<20)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// TestRunUCXExchange runs case 6a at a small size: the coupled exchange as
// one MPMD launch over MPI and as two separate launches over UCX (sm, tcp),
// every round verified by the readers.
func TestRunUCXExchange(t *testing.T) {
	if testing.Short() {
		t.Skip("launches mpirun")
	}
	bin, err := BuildProgram(ExchangeProg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pts, err := RunUCXExchange(bin, []int64{8}, 2, nil, 2*time.Minute, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	for _, sys := range UCXExchangeSystems {
		if s := pts[0].Seconds[sys]; s.N != 2 || s.Min <= 0 {
			t.Errorf("%s: %+v, want 2 positive times", sys, s)
		}
	}
}
