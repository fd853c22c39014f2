package agent

import (
	"testing"

	"github.com/couplet-hpc/couplet/ucx"
)

// testUCXNode is a producer-side ucxNode over shared memory, closed with the test.
func testUCXNode(t *testing.T) *ucxNode {
	t.Helper()
	c, err := ucx.NewContext(&ucx.Options{Config: map[string]string{"TLS": "sm"}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewWorker(ucx.ThreadSerialized)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	addr, err := w.Address()
	if err != nil {
		t.Fatal(err)
	}
	n := &ucxNode{ctx: c, w: w, addr: addr, slot: 4096, slots: 1, sem: make(chan struct{}, maxWindows),
		eps: map[string]*ucx.Endpoint{}, keys: map[*ucx.Endpoint]map[string]*remoteKey{}}
	t.Cleanup(n.close)
	return n
}

// TestRemoteKeyCache: a window's key is unpacked once per endpoint and then shared; a
// failed transfer drops it (destroyed by its last user); at most maxKeysPerEndpoint keys
// stay, the least recently used unheld one going first; a held key is never evicted; a
// retired endpoint takes its keys along.
func TestRemoteKeyCache(t *testing.T) {
	prod, cons := testUCXNode(t), testUCXNode(t)
	ep, err := prod.endpoint(cons.addr)
	if err != nil {
		t.Fatal(err)
	}
	packed := make([][]byte, maxKeysPerEndpoint+2)
	for i := range packed {
		m, err := cons.ctx.MemAlloc(4096)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Unmap() })
		if packed[i], err = m.PackRkey(); err != nil {
			t.Fatal(err)
		}
	}
	get := func(i int) *remoteKey {
		t.Helper()
		k, err := prod.remoteKey(ep, packed[i])
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	cached := func() int { return len(prod.keys[ep]) }

	k0 := get(0)
	if k := get(0); k != k0 || k0.users != 2 {
		t.Fatalf("second use of key 0: same %v, users %d; want the cached key with 2 users", k == k0, k0.users)
	}
	prod.releaseKey(ep, packed[0], k0, true)
	prod.releaseKey(ep, packed[0], k0, false) // a failed transfer
	if !k0.dead || k0.users != 0 || cached() != 0 {
		t.Fatalf("after a failed transfer: dead %v, users %d, %d cached; want dead, 0, 0", k0.dead, k0.users, cached())
	}
	if k := get(0); k == k0 {
		t.Fatal("a dropped key was handed out again")
	} else {
		prod.releaseKey(ep, packed[0], k, true)
	}

	held := get(1) // key 1 stays held throughout
	for i := 2; i < len(packed); i++ {
		prod.releaseKey(ep, packed[i], get(i), true)
		if cached() > maxKeysPerEndpoint {
			t.Fatalf("%d keys cached, at most %d", cached(), maxKeysPerEndpoint)
		}
	}
	m := prod.keys[ep]
	if m[string(packed[1])] != held {
		t.Error("the held key was evicted")
	}
	if _, ok := m[string(packed[0])]; ok {
		t.Error("the least recently used key 0 is still cached")
	}
	if _, ok := m[string(packed[2])]; ok {
		t.Error("the least recently used unheld key 2 is still cached")
	}

	prod.dropEndpoint(cons.addr, ep)
	if len(prod.keys) != 0 || !held.dead {
		t.Fatalf("after retiring the endpoint: %d endpoints with keys, held key dead %v", len(prod.keys), held.dead)
	}
	prod.releaseKey(ep, packed[1], held, true) // its last user destroys it
	if held.users != 0 {
		t.Fatalf("users %d after the last release", held.users)
	}
}
