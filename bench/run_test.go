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
		{1, 7 * 16}, {3, 7 * 6}, {8, 7 * 2}, {15, 7 * 2}, {16, 7}, {256, 7}, {1024, 3},
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
