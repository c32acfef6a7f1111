// Package drop holds the end-to-end tests of drops, sales with sizes
// (variants): the admin API, the gate and the sold-out marks per size, and
// the drop storm checked against MySQL, Redis and the stats.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package drop
