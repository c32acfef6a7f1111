// Package room holds the end-to-end tests of the waiting room and the proof
// of work that pays for a join, with its pricing.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package room
