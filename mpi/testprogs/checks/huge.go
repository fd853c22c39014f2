package main

import (
	"github.com/couplet-hpc/couplet/mpi"
)

// huge moves one message of more than 2^31 bytes (and elements) from rank 0
// to rank 1 and checks it; other ranks only take part in the barrier.
func huge(w mpi.Comm, _ []string) {
	const n = 1<<31 + 4099
	switch rank {
	case 0:
		buf := make([]uint8, n)
		for i := range buf {
			buf[i] = uint8(i % 251)
		}
		must(mpi.Send(w, buf, 1, 60), "Send 2 GiB")
	case 1:
		buf := make([]uint8, n)
		st, err := mpi.Recv(w, buf, 0, 60)
		must(err, "Recv 2 GiB")
		if st.Count != n {
			failf("status count %d, want %d", st.Count, int64(n))
		}
		for i, v := range buf {
			if v != uint8(i%251) {
				failf("byte %d = %d, want %d", i, v, i%251)
				return
			}
		}
	}
}
