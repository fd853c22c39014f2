package protocol

import (
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

// BenchmarkScheduleCodec encodes and decodes a SCHEDULE of case 1 of couplet
// bench (one writer's boxes for two readers), as the matcher and the writer do
// once each per epoch.
func BenchmarkScheduleCodec(b *testing.B) {
	var ts []Tagged
	for i := range 2 {
		ts = append(ts, Tagged{T: matcher.Transfer{Writer: 1, Reader: 4 + i, ReadID: 1, Seq: 1,
			Box: matcher.Box{Start: []int64{int64(16 * i), 0, 256}, Count: []int64{16, 256, 256}}}, ID: int64(40 + i), Peer: 4 + i})
	}
	m := &Envelope{Kind: Schedule, Path: "/tmp/run/coupled.nc", Session: 3, Epoch: 17, Sched: ts, Peer: 4}
	for b.Loop() {
		buf, err := m.Encode()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}
