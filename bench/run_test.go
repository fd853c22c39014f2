package bench

import "testing"

// TestStageRepsFor: files under smallStageMiB run as many more rounds as move the bytes
// of Reps stagings of smallStageMiB; StageBigReps takes over from StageBigMiB.
func TestStageRepsFor(t *testing.T) {
	o := Options{Reps: 7, StageBigReps: 3, StageBigMiB: 1024}
	for _, c := range []struct {
		mib  int64
		want int
	}{
		{1, 7 * 64}, {3, 7 * 22}, {16, 7 * 4}, {63, 7 * 2}, {64, 7}, {256, 7}, {1024, 3},
	} {
		if got := o.stageRepsFor(c.mib); got != c.want {
			t.Errorf("stageRepsFor(%d MiB) = %d, want %d", c.mib, got, c.want)
		}
	}
	o.StageBigReps = 0
	if got := o.stageRepsFor(1024); got != 7 {
		t.Errorf("without StageBigReps: stageRepsFor(1024 MiB) = %d, want 7", got)
	}
}

// TestRepsFor: array sizes below the run's largest run as many more rounds as move the
// bytes of Reps rounds of the largest; from BigMiB up BigReps takes over, else Reps but
// at least minBigRounds.
func TestRepsFor(t *testing.T) {
	o := Options{Reps: 7, BigReps: 3, BigMiB: 1024}
	for _, c := range []struct {
		mib, top int64
		want     int
	}{
		{64, 1024, 7 * 16}, {256, 1024, 7 * 4}, {1024, 1024, 3}, {100, 1024, 7 * 11},
		{64, 64, 7}, {64, 256, 7 * 4}, {256, 256, 7},
	} {
		if got := o.repsFor(c.mib, c.top); got != c.want {
			t.Errorf("repsFor(%d MiB of %d) = %d, want %d", c.mib, c.top, got, c.want)
		}
	}
	o.BigReps = 0
	if got := o.repsFor(1024, 1024); got != minBigRounds {
		t.Errorf("without BigReps: repsFor(1024 MiB) = %d, want %d", got, minBigRounds)
	}
	if got := o.repsFor(256, 1024); got != 7*4 {
		t.Errorf("without BigReps: repsFor(256 MiB of 1024) = %d, want %d", got, 7*4)
	}
	o.Reps = 20
	if got := o.repsFor(1024, 1024); got != 20 {
		t.Errorf("with Reps 20: repsFor(1024 MiB) = %d, want 20", got)
	}
}
