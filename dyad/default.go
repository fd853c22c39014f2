package dyad

import (
	"os"
	"sync"
)

var (
	defMu     sync.Mutex
	defClient *Client
)

// Default returns the client configured from the environment, re-reading it on every
// call when DYAD_REINIT is set.
func Default() (*Client, error) {
	defMu.Lock()
	defer defMu.Unlock()
	if defClient != nil && !defClient.cfg.Reinit {
		return defClient, nil
	}
	cfg, err := ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	defClient = c
	return c, nil
}

// Produce publishes path with the default client.
func Produce(path string) (*Meta, error) {
	c, err := Default()
	if err != nil {
		return nil, err
	}
	return c.Produce(path)
}

// Consume stages path with the default client and returns the local path.
func Consume(path string) (string, error) {
	c, err := Default()
	if err != nil {
		return "", err
	}
	return c.Consume(path)
}

// Create creates path with the default client; Close produces it.
func Create(path string) (*File, error) {
	c, err := Default()
	if err != nil {
		return nil, err
	}
	return c.Create(path)
}

// Open consumes and opens path with the default client.
func Open(path string) (*os.File, error) {
	c, err := Default()
	if err != nil {
		return nil, err
	}
	return c.Open(path)
}
