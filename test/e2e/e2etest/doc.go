// Package e2etest starts the whole seckill server in-process on a free port,
// against a fresh MySQL database and a unique Redis key prefix, and holds the
// requests, clocks and checks the end-to-end tests under test/e2e share.
//
// It is not a _test package because the tests live in one package per area
// (purchase, drop, draw, room, payments, webhooks, ops, browser), and a
// helper written once must be importable by all of them.
package e2etest
