package mpilaunch

import (
	"reflect"
	"strings"
	"testing"
)

func TestFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		out  string
		want []Failure
	}{
		{"none", "[1,0]<stdout>:ok\n[1,1]<stdout>:ok\n", nil},
		{"tagged fail", "[1,3]<stderr>:FAIL rank 3: bad value 7\n", []Failure{{3, "bad value 7"}}},
		{"untagged fail", "FAIL rank 0: boom\n", []Failure{{0, "boom"}}},
		{"panic takes tag rank", "[2,5]<stderr>:panic: runtime error: x\n[2,5]<stderr>:goroutine 1\n",
			[]Failure{{5, "panic: runtime error: x"}}},
		{"several in order", "[1,1]<stderr>:FAIL rank 1: a\n[1,0]<stdout>:fine\n[1,0]<stderr>:FAIL rank 0: b\n",
			[]Failure{{1, "a"}, {0, "b"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Failures(c.out); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Failures = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestRankLines(t *testing.T) {
	out := "[1,0]<stdout>:a\n[1,1]<stdout>:b\n[1,0]<stderr>:c\nplain\n"
	if got := RankLines(out, 0); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Errorf("RankLines(0) = %q", got)
	}
	if got := RankLines(out, 2); got != nil {
		t.Errorf("RankLines(2) = %q, want none", got)
	}
}

func TestArgs(t *testing.T) {
	got := strings.Join(Args(
		App{NP: 2, Prog: "/a", Args: []string{"x"}},
		App{NP: 1, Prog: "/b", Env: []string{"K=V"}}), " ")
	want := "--oversubscribe --tag-output -np 2 /a x : -np 1 env K=V /b"
	if got != want {
		t.Errorf("Args = %q, want %q", got, want)
	}
}
