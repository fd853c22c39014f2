package main

import (
	"os"
	"testing"
)

// runMainEnv makes the test binary run couplet's main, so that tests can start the real
// command as a process of its own.
const runMainEnv = "COUPLET_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
