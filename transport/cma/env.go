package cma

import (
	"fmt"
	"os"
	"strconv"
)

// Env names the environment variable that turns single-copy reads on for a
// process ("1", "true", "on"; off when unset): the transports then move
// blocks between processes of one node that both turned it on by a
// descriptor and a read (Read) instead of their two-copy paths.
const Env = "COUPLET_SINGLE_COPY"

// MinBlock is the smallest block worth a single-copy read: below it the
// descriptor's round trip costs more than two copies.
const MinBlock = 128 << 10

// Enabled reads Env: whether this process offers and takes single-copy
// reads, or an error naming a value it does not understand.
func Enabled() (bool, error) {
	v := os.Getenv(Env)
	switch v {
	case "":
		return false, nil
	case "on", "ON", "On":
		return true, nil
	case "off", "OFF", "Off":
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want 0/1, true/false or on/off", Env, v)
	}
	return on, nil
}
