package heatfile

import (
	"math"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dtf/config"
)

func TestOutputSteps(t *testing.T) {
	cases := []struct {
		steps, every int
		want         []int
	}{
		{100, 20, []int{20, 40, 60, 80, 100}},
		{45, 20, []int{20, 40}},
		{10, 20, nil},
		{10, 0, nil},
	}
	for _, c := range cases {
		got := OutputSteps(c.steps, c.every)
		if len(got) != len(c.want) {
			t.Errorf("OutputSteps(%d, %d) = %v, want %v", c.steps, c.every, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("OutputSteps(%d, %d) = %v, want %v", c.steps, c.every, got, c.want)
				break
			}
		}
	}
}

func TestFileNameMatchesPattern(t *testing.T) {
	p, err := config.CompilePattern(Pattern)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FileName("/tmp/run", 20), FileName(".", 0), FileName("out", 12345)} {
		if !p.Match(name) {
			t.Errorf("pattern %q does not match %q", Pattern, name)
		}
	}
	// Patterns match as DTF's did: a substring of the path, % a wildcard.
	if p.Match("/tmp/run/cool_0020.nc") || p.Match("/tmp/run/heat.nc") {
		t.Errorf("pattern %q matches files that are not step files", Pattern)
	}
}

func TestCompare(t *testing.T) {
	want := Empty()
	want.AddBlock([]float64{1, 2, 3, 4, 5, 6}, 0, 0, 3)
	want.AddFlux([]float32{0.5, 0.25})
	cases := []struct {
		name  string
		edit  func(*Checksum)
		wrong string // attribute named in the difference, "" for none
	}{
		{"same", func(*Checksum) {}, ""},
		{"rounding", func(c *Checksum) { c.Sum *= 1 + 1e-13 }, ""},
		{"sum", func(c *Checksum) { c.Sum += 1e-3 }, AttSum},
		{"sumsq", func(c *Checksum) { c.SumSq *= 1.001 }, AttSumSq},
		{"wsum", func(c *Checksum) { c.WSum++ }, AttWSum},
		{"min exact", func(c *Checksum) { c.Min = math.Nextafter(c.Min, 0) }, AttMin},
		{"max exact", func(c *Checksum) { c.Max = math.Nextafter(c.Max, 10) }, AttMax},
		{"flux", func(c *Checksum) { c.FluxSum = 0 }, AttFlux},
		{"nan", func(c *Checksum) { c.Sum = math.NaN() }, AttSum},
	}
	for _, c := range cases {
		got := want
		c.edit(&got)
		bad := Compare(got, want)
		switch {
		case c.wrong == "" && len(bad) > 0:
			t.Errorf("%s: unexpected differences %v", c.name, bad)
		case c.wrong != "" && (len(bad) != 1 || !strings.HasPrefix(bad[0], c.wrong+"=")):
			t.Errorf("%s: differences %v, want one on %s", c.name, bad, c.wrong)
		}
	}
}

func TestAddBlockPositions(t *testing.T) {
	// The same values at other positions give the same sum but another
	// weighted sum.
	a, b := Empty(), Empty()
	a.AddBlock([]float64{1, 2, 3, 4}, 0, 0, 2)
	b.AddBlock([]float64{2, 1, 3, 4}, 0, 0, 2)
	if a.Sum != b.Sum || a.SumSq != b.SumSq || a.Min != b.Min || a.Max != b.Max {
		t.Fatalf("permutation changed an order-free sum: %+v vs %+v", a, b)
	}
	if a.WSum == b.WSum {
		t.Errorf("weighted sum does not see a swap: %v", a.WSum)
	}
	if a.Min != 1 || a.Max != 4 || a.Sum != 10 || a.SumSq != 30 {
		t.Errorf("checksum %+v, want sum 10, sumsq 30, min 1, max 4", a)
	}
}
