// Package all links every transport couplet ships, and the etcd client their
// rendezvous uses, into a program that imports it for its side effects:
//
//	import _ "github.com/couplet-hpc/couplet/transport/all"
//
// dtf chooses a transport by the name in the config (transport = mpi | ucx) among
// those registered (transport.Register), in the manner of database/sql drivers;
// it imports none itself. A program may instead import only the transports it uses.
package all

import (
	_ "github.com/couplet-hpc/couplet/kvs/etcdkv"             // etcd:// stores, where separate launches meet
	_ "github.com/couplet-hpc/couplet/transport/mpitransport" // "mpi"
	_ "github.com/couplet-hpc/couplet/transport/ucxtransport" // "ucx"
)
