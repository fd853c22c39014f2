package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Memory is a memory region registered with a context (ucp_mem_map), the
// target of remote puts and gets once its packed key reaches a peer.
type Memory struct {
	ctx   *Context
	h     C.ucp_mem_h
	addr  unsafe.Pointer
	n     int
	pin   runtime.Pinner
	owned bool // allocated by UCX rather than mapped from Go memory
}

// MemMap registers buf. The Go memory stays pinned until Unmap.
func (c *Context) MemMap(buf []byte) (*Memory, error) {
	if len(buf) == 0 {
		return nil, fmt.Errorf("ucx: mem_map: empty buffer")
	}
	m := &Memory{ctx: c, n: len(buf)}
	m.pin.Pin(unsafe.SliceData(buf))
	if err := m.mapC(unsafe.Pointer(unsafe.SliceData(buf))); err != nil {
		m.pin.Unpin()
		return nil, err
	}
	return m, nil
}

// MemAlloc has UCX allocate and register n bytes (UCP_MEM_MAP_ALLOCATE),
// which UCX can reach faster than pinned Go memory on some transports.
func (c *Context) MemAlloc(n int) (*Memory, error) {
	if n <= 0 {
		return nil, fmt.Errorf("ucx: mem_map: bad allocation size %d", n)
	}
	m := &Memory{ctx: c, n: n, owned: true}
	if err := m.mapC(nil); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Memory) mapC(p unsafe.Pointer) error {
	ch, err := m.ctx.handle()
	if err != nil {
		return err
	}
	return statusErr("mem_map", C.cu_mem_map(ch, p, C.size_t(m.n), &m.h, &m.addr))
}

// Bytes returns the registered region as a slice. For MemAlloc memory the
// slice points into C memory and is invalid after Unmap.
func (m *Memory) Bytes() []byte { return unsafe.Slice((*byte)(m.addr), m.n) }

// Addr is the region's base address, which peers use as the remote address.
func (m *Memory) Addr() uint64 { return uint64(uintptr(m.addr)) }

// Len is the region's length in bytes.
func (m *Memory) Len() int { return m.n }

// PackRkey packs the remote key a peer needs to access the region.
func (m *Memory) PackRkey() ([]byte, error) {
	ch, err := m.ctx.handle()
	if err != nil {
		return nil, err
	}
	if m.h == nil {
		return nil, ErrClosed
	}
	var buf unsafe.Pointer
	var n C.size_t
	if err := statusErr("rkey_pack", C.ucp_rkey_pack(ch, m.h, &buf, &n)); err != nil {
		return nil, err
	}
	defer C.ucp_rkey_buffer_release(buf)
	return C.GoBytes(buf, C.int(n)), nil
}

// Unmap deregisters the region (and frees it if UCX allocated it), then
// unpins the Go memory. No operation may still use it.
func (m *Memory) Unmap() error {
	if m.h == nil {
		return nil
	}
	ch, err := m.ctx.handle()
	if err != nil {
		return err
	}
	err = statusErr("mem_unmap", C.ucp_mem_unmap(ch, m.h))
	m.h = nil
	m.pin.Unpin()
	return err
}

// RemoteKey is an unpacked remote key: access to a peer's registered
// region through one endpoint.
type RemoteKey struct {
	ep *Endpoint
	h  C.ucp_rkey_h
}

// UnpackRkey unpacks a key packed by the peer's Memory.PackRkey.
func (e *Endpoint) UnpackRkey(packed []byte) (*RemoteKey, error) {
	if len(packed) == 0 {
		return nil, fmt.Errorf("ucx: rkey_unpack: empty key")
	}
	k := &RemoteKey{ep: e}
	_, err := e.w.lock()
	if err == nil && e.h == nil {
		err = ErrClosed
	}
	if err == nil {
		err = statusErr("rkey_unpack", C.ucp_ep_rkey_unpack(e.h, unsafe.Pointer(&packed[0]), &k.h))
	}
	e.w.unlock()
	if err != nil {
		return nil, err
	}
	return k, nil
}

// Destroy releases the key; it must not be used by pending operations.
func (k *RemoteKey) Destroy() {
	if k.h == nil {
		return
	}
	k.ep.w.lock()
	C.ucp_rkey_destroy(k.h)
	k.ep.w.unlock()
	k.h = nil
}

// Mapped returns the peer's registered bytes [remote, remote+n) as a slice
// of this process's memory when the region is mapped here through shared
// memory (ucp_rkey_ptr: sysv or posix regions of a peer on this node), so
// that the caller can fill it with ordinary stores or a read(2) straight
// into it, with no put and no staging copy. Otherwise it fails, e.g. with
// StatusUnreachable over tcp or cma. UCX checks only that remote lies in
// the region: the caller must keep the whole range within the region it
// was told of. The slice points into C memory and is valid until the key is
// destroyed; nothing orders its stores with the peer but the caller's own
// messages.
func (k *RemoteKey) Mapped(remote uint64, n int) ([]byte, error) {
	if k == nil || k.h == nil {
		return nil, fmt.Errorf("ucx: rkey_ptr: remote key missing or destroyed")
	}
	if n <= 0 {
		return nil, fmt.Errorf("ucx: rkey_ptr: bad length %d", n)
	}
	var p unsafe.Pointer
	k.ep.w.lock()
	st := C.ucp_rkey_ptr(k.h, C.uint64_t(remote), &p)
	k.ep.w.unlock()
	if err := statusErr("rkey_ptr", st); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), n), nil
}
