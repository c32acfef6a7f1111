// Package ops holds the end-to-end tests of what operators use: the admin API
// and its session, the audit log, logs, metrics and alert names, instances
// and replicas, reports and their CSV, retiring sales.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package ops
