package ucxtransport

import (
	"fmt"

	"github.com/couplet-hpc/couplet/kvs"
)

// compPrefix is the key prefix of everything component name publishes.
func compPrefix(ns, name string) string { return ns + "/" + kvs.EscapeSegment(name) + "/" }

// addrKey holds the worker address of rank (component-local) of name.
func addrKey(ns, name string, rank int) string {
	return fmt.Sprintf("%saddr/%d", compPrefix(ns, name), rank)
}

// sizeKey holds the number of ranks of component name, written last.
func sizeKey(ns, name string) string { return compPrefix(ns, name) + "size" }
