package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// pastAddrsFile, in the state directory, lists the addresses this agent advertised in
// its previous runs, one a line, newest last: the owners its records may still name.
const pastAddrsFile = "owner-addrs"

// maxPastAddrs bounds that list.
const maxPastAddrs = 16

// reclaim re-publishes, under this agent's address, the records that name this agent
// (by an address of a previous run or its current one) and whose files it still holds
// unchanged: same size and the content hash the signed record names. Records whose file is
// missing or changed are left naming the old owner, so consumers are told it is gone
// rather than handed other bytes. It runs at start-up, before the agent serves.
func (a *Agent) reclaim() {
	past := a.pastAddrs()
	defer a.savePastAddrs(past)
	if !a.tracksLiveness() {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, a.opts.KVSTimeout)
	es, _, err := a.kv.List(ctx, kvsRoot+"/")
	cancel()
	if err != nil {
		a.errs.Printf("re-publish: list the records: %v", err)
		return
	}
	var moved, kept, lost int
	for _, e := range es {
		m, err := wire.DecodeMeta(e.Value)
		if err != nil || (m.Owner != a.opts.Advertise && !slices.Contains(past, m.Owner)) || a.verify(m) != nil {
			continue
		}
		if !a.stillHolds(m) {
			lost++
			a.errs.Printf("not re-published %q version %d: the file is missing or changed since it was produced", m.Path, m.Version)
			continue
		}
		if m.Owner == a.opts.Advertise && m.Node == a.opts.Node {
			a.live.hold(e.Key, m)
			kept++
			continue
		}
		next := *m
		next.Owner, next.Node = a.opts.Advertise, a.opts.Node
		a.sign(&next)
		ctx, cancel := context.WithTimeout(a.ctx, a.opts.KVSTimeout)
		_, err = a.kv.Update(ctx, e.Key, func(old []byte, found bool) ([]byte, error) {
			// Only over the record read above: a newer produce elsewhere wins.
			if !found || !bytes.Equal(old, e.Value) {
				return nil, errKeep
			}
			return wire.EncodeMeta(&next)
		})
		cancel()
		if err != nil {
			if !errors.Is(err, errKeep) {
				a.errs.Printf("re-publish %q: %v", m.Path, err)
			}
			continue
		}
		a.live.hold(e.Key, &next)
		a.cache.put(e.Key, &next)
		a.ctr.republished.Add(1)
		moved++
	}
	if moved+kept+lost > 0 {
		a.info.Printf("re-published %d files held from a previous run (%d already named this address, %d missing or changed)", moved, kept, lost)
	}
}

// stillHolds says whether the file of m is in the producer directory with m's size
// and content tag.
func (a *Agent) stillHolds(m *wire.Meta) bool {
	if len(m.Hash) != contentHashSize {
		return false
	}
	f, err := a.openConfined(m.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	sum, crc, n, err := a.hashFile(f, m.Hash[:saltSize])
	return err == nil && n == m.Size && crc == m.Checksum && bytes.Equal(sum, m.Hash)
}

func (a *Agent) pastAddrs() []string {
	b, err := os.ReadFile(filepath.Join(a.opts.StateDir, pastAddrsFile))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

// savePastAddrs records the current address after the past ones.
func (a *Agent) savePastAddrs(past []string) {
	past = slices.DeleteFunc(past, func(s string) bool { return s == a.opts.Advertise })
	past = append(past, a.opts.Advertise)
	if len(past) > maxPastAddrs {
		past = past[len(past)-maxPastAddrs:]
	}
	if err := a.writeAtomic(filepath.Join(a.opts.StateDir, pastAddrsFile), []byte(strings.Join(past, "\n")+"\n")); err != nil {
		a.errs.Printf("record this agent's address: %v", err)
	}
}
