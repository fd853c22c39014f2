// Package dyad is couplet's file-staging engine, in the model of LLNL DYAD: a file closed
// under the producer's managed directory is published to a key-value store; a consumer
// opening the same relative path on any node blocks until it is published, then its node
// agent fetches the file into the consumer's managed directory.
package dyad

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// DTL names a data transport layer.
type DTL string

// The data transport layers. DTLRPC and DTLUCX are available; Margo is not on this platform.
const (
	DTLRPC   DTL = "rpc"
	DTLUCX   DTL = "ucx"
	DTLMargo DTL = "margo"
)

// ParseDTL accepts DYAD's names (FLUX_RPC, UCX, MARGO) and couplet's (rpc, ucx, margo).
// It fails clearly for a DTL this build or platform cannot provide.
func ParseDTL(s string) (DTL, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "rpc", "flux_rpc":
		return DTLRPC, nil
	case "ucx":
		return DTLUCX, nil
	case "margo":
		return DTLMargo, fmt.Errorf("dyad: DTL %q needs Mercury/Margo, which is not available on this platform; use rpc", s)
	}
	return "", fmt.Errorf("dyad: unknown DTL mode %q (want FLUX_RPC/rpc, UCX or MARGO)", s)
}

// Config is the staging configuration. ConfigFromEnv reads it from DYAD's variables.
type Config struct {
	// Namespace is the KVS namespace (DYAD_KVS_NAMESPACE, required).
	Namespace string
	// ProducerDir and ConsumerDir are the managed directories (DYAD_PATH_PRODUCER,
	// DYAD_PATH_CONSUMER).
	ProducerDir, ConsumerDir string
	// PathRelative makes relative paths relative to the managed directory rather than
	// the working directory (DYAD_PATH_RELATIVE).
	PathRelative bool
	// DTL is the data transport a consumer's stagings use (DYAD_DTL_MODE), sent with
	// each staging request; empty means the agent's own DTL.
	DTL DTL
	// SharedStorage: producer and consumer share storage; synchronise, never transfer
	// (DYAD_SHARED_STORAGE).
	SharedStorage bool
	// AsyncPublish returns from Produce before the metadata is published; Client.Close
	// waits for it (DYAD_ASYNC_PUBLISH).
	AsyncPublish bool
	// FsyncWrite fsyncs a produced file before publishing it (DYAD_FSYNC_WRITE).
	FsyncWrite bool
	// KeyDepth and KeyBins shape the key (DYAD_KEY_DEPTH, default 3; DYAD_KEY_BINS, default 1024).
	KeyDepth, KeyBins int
	// ServiceMux is the number of agents per node (DYAD_SERVICE_MUX, default 1).
	ServiceMux int
	// SyncDebug logs every step (DYAD_SYNC_DEBUG).
	SyncDebug bool
	// SyncCheck re-verifies the checksum of a local copy before using it (DYAD_SYNC_CHECK).
	SyncCheck bool
	// Reinit re-reads the environment on every package-level call (DYAD_REINIT).
	Reinit bool
	// AgentSocket is the local agent's Unix socket (COUPLET_AGENT_SOCKET). Empty means
	// the socket SocketFor derives from the managed directory of each operation.
	AgentSocket string
	// Timeout bounds waits for metadata and locks (COUPLET_DYAD_TIMEOUT, default 60s).
	Timeout time.Duration
	// TransferTimeout bounds one staging (COUPLET_DYAD_TRANSFER_TIMEOUT, default 10m).
	TransferTimeout time.Duration
}

// ConfigFromEnv reads the DYAD_* variables (and couplet's COUPLET_* additions).
// Booleans are parsed by value: DYAD_SHARED_STORAGE=0 means off.
func ConfigFromEnv() (Config, error) { return ConfigFrom(os.LookupEnv) }

// ConfigFrom is ConfigFromEnv over another source of the same variables (a command
// line's flags over the environment, for example).
func ConfigFrom(lookup func(string) (string, bool)) (Config, error) {
	c := Config{KeyDepth: 3, KeyBins: 1024, ServiceMux: 1,
		Timeout: 60 * time.Second, TransferTimeout: 10 * time.Minute}
	var errs []string
	str := func(name string, dst *string) {
		if v, ok := lookup(name); ok {
			*dst = v
		}
	}
	boolean := func(name string, dst *bool) {
		v, ok := lookup(name)
		if !ok {
			return
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes", "on", "y", "t":
			*dst = true
		case "0", "false", "no", "off", "n", "f", "":
			*dst = false
		default:
			errs = append(errs, fmt.Sprintf("%s=%q is not a boolean", name, v))
		}
	}
	integer := func(name string, dst *int, lo int) {
		if v, ok := lookup(name); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < lo {
				errs = append(errs, fmt.Sprintf("%s=%q is not an integer >= %d", name, v, lo))
				return
			}
			*dst = n
		}
	}
	duration := func(name string, dst *time.Duration) {
		if v, ok := lookup(name); ok {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Sprintf("%s=%q is not a positive duration", name, v))
				return
			}
			*dst = d
		}
	}
	str("DYAD_KVS_NAMESPACE", &c.Namespace)
	str("DYAD_PATH_PRODUCER", &c.ProducerDir)
	str("DYAD_PATH_CONSUMER", &c.ConsumerDir)
	boolean("DYAD_PATH_RELATIVE", &c.PathRelative)
	if v, ok := lookup("DYAD_DTL_MODE"); ok {
		d, err := ParseDTL(v)
		if err != nil {
			errs = append(errs, err.Error())
		}
		c.DTL = d
	}
	boolean("DYAD_SHARED_STORAGE", &c.SharedStorage)
	boolean("DYAD_ASYNC_PUBLISH", &c.AsyncPublish)
	boolean("DYAD_FSYNC_WRITE", &c.FsyncWrite)
	integer("DYAD_KEY_DEPTH", &c.KeyDepth, 0)
	integer("DYAD_KEY_BINS", &c.KeyBins, 1)
	integer("DYAD_SERVICE_MUX", &c.ServiceMux, 1)
	boolean("DYAD_SYNC_DEBUG", &c.SyncDebug)
	boolean("DYAD_SYNC_CHECK", &c.SyncCheck)
	boolean("DYAD_REINIT", &c.Reinit)
	str("COUPLET_AGENT_SOCKET", &c.AgentSocket)
	duration("COUPLET_DYAD_TIMEOUT", &c.Timeout)
	duration("COUPLET_DYAD_TRANSFER_TIMEOUT", &c.TransferTimeout)
	if c.Namespace == "" {
		errs = append(errs, "DYAD_KVS_NAMESPACE is required")
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("dyad: bad environment: %s", strings.Join(errs, "; "))
	}
	return c, nil
}
