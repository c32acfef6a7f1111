package harness

import (
	"errors"
	mrand "math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Ports are drawn from [lowestPort, the start of the kernel's ephemeral
// range). Below that range because a port the kernel hands to outgoing
// connections can be taken from under a listener: the benchmark opens
// 10,000 client connections at once, and a fault test restarts a server on
// the port it had before the kill.
const (
	lowestPort = 10000
	// minSpan is the fewest ports the rule wants to draw from; a kernel range
	// starting lower than lowestPort+minSpan falls back to Linux's default
	// start, since drawing from a handful of ports would collide.
	minSpan          = 1000
	defaultEphemeral = 32768
)

// ErrNoFreePort is returned when no free loopback port was found.
var ErrNoFreePort = errors.New("harness: no free loopback port below the ephemeral range")

// FreePort returns a loopback TCP port that was free a moment ago, below the
// kernel's ephemeral range. It returns ErrNoFreePort after 200 taken ones.
func FreePort() (int, error) {
	low := ephemeralLow()
	for range 200 {
		port := lowestPort + mrand.IntN(low-lowestPort)
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			ln.Close()
			return port, nil
		}
	}
	return 0, ErrNoFreePort
}

// FreeAddr is FreePort as a 127.0.0.1:port address.
func FreeAddr() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return "127.0.0.1:" + strconv.Itoa(port), nil
}

// ephemeralLow is the lowest port the kernel picks for outgoing connections.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return defaultEphemeral
	}
	return parseEphemeralLow(string(b))
}

// parseEphemeralLow reads the start of ip_local_port_range ("32768\t60999"),
// or the default where it is malformed or leaves fewer than minSpan ports.
func parseEphemeralLow(s string) int {
	f := strings.Fields(s)
	if len(f) != 2 {
		return defaultEphemeral
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < lowestPort+minSpan {
		return defaultEphemeral
	}
	return n
}
