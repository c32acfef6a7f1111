// Package harness is what the benchmark (cmd/bench) and the fault-injection
// tests (test/fault) share to drive a real seckill server from the outside:
// child processes, free loopback ports, the child's environment, polling a
// condition to a deadline, a small client of the HTTP API, and a database of
// its own on a shared MySQL. It serves those two tools, not the server:
// nothing under cmd/server or the domain packages imports it.
//
// It does not import testing, so the benchmark binary can use it; the fault
// tests wrap what must fail a test (a process that will not die, a server
// that never answers) in helpers of their own.
package harness
