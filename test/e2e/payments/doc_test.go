// Package payments holds the end-to-end tests of payments: the provider's
// callback, outcomes, queued and late payments, and an admin's cancel.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package payments
