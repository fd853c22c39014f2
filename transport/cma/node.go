package cma

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NodeKey identifies the machine and pid namespace this process runs in:
// a hash of the host name, the kernel's boot id and the pid namespace.
// Processes with equal keys may read each other's memory by pid (the kernel
// still decides whether they are allowed to).
func NodeKey() int64 {
	h := fnv.New64a()
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ := os.Readlink("/proc/self/ns/pid")
	fmt.Fprintf(h, "%s\x00%s\x00%s", host, bytes.TrimSpace(boot), ns)
	return int64(h.Sum64() >> 1) // non-negative
}

// Addr returns the address of buf's first byte, for a probe of this
// process (see Probe); buf must not be empty.
func Addr(buf []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&buf[0]))) }

// Probe reads len(want) bytes at addr in process pid and reports whether
// they equal want: nil when single-copy reads from pid work, ErrRefused
// (wrapped) when the kernel refuses them, another error when the bytes
// differ or the read fails otherwise.
func Probe(pid int, addr uint64, want []byte) error {
	got := make([]byte, len(want))
	iov := []unix.Iovec{{Base: &got[0]}}
	iov[0].SetLen(len(got))
	n, err := unix.ProcessVMReadv(pid, iov, []unix.RemoteIovec{{Base: uintptr(addr), Len: len(got)}}, 0)
	switch {
	case err == unix.EPERM || err == unix.ESRCH:
		return fmt.Errorf("%w: probe of pid %d: %v", ErrRefused, pid, err)
	case err != nil:
		return fmt.Errorf("cma: probe of pid %d: %w", pid, err)
	case n != len(want) || !bytes.Equal(got, want):
		return fmt.Errorf("cma: probe of pid %d read %x, want %x", pid, got[:n], want)
	}
	return nil
}
