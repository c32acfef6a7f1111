package app

import (
	"net"
	"os"
)

// instance names this server in the consumer groups of the order streams
// (SECKILL_INSTANCE, or hostname:port). It must stay the same when the
// instance restarts, so the new process finds the entries the old one had
// read and not finished under its own name and persists them at once,
// instead of waiting SECKILL_CLAIM_IDLE for another server to claim them.
//
// The port, not the pid, makes the default unique: two processes on one
// host cannot hold the same listening port at once, and a process that
// restarts on its port is the same instance for the load balancer too. On
// ":0" every start gets a new port, so a new name: a random port is no
// identity, and the idle claim recovers what such a run left.
func (a *App) instance() string {
	if a.cfg.Instance != "" {
		return a.cfg.Instance
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	_, port, err := net.SplitHostPort(a.Addr())
	if err != nil {
		port = a.Addr()
	}
	return net.JoinHostPort(host, port)
}
