package ucx

import (
	"os"
	"sync"
)

// envMu serialises this package's changes to the environment with the UCX
// calls that read it (NewContext, NewWorker): the C library's getenv and
// setenv are not safe against each other.
var envMu sync.Mutex

// setEnv sets UCX_<name> to each value of cfg in the process environment and
// returns what puts the environment back as it was. Callers hold envMu.
func setEnv(cfg map[string]string) (restore func()) {
	old := map[string]*string{} // nil: was unset
	for k, v := range cfg {
		name := "UCX_" + k
		if prev, ok := os.LookupEnv(name); ok {
			old[name] = &prev
		} else {
			old[name] = nil
		}
		os.Setenv(name, v)
	}
	return func() {
		for name, prev := range old {
			if prev == nil {
				os.Unsetenv(name)
			} else {
				os.Setenv(name, *prev)
			}
		}
	}
}
