// Package draw holds the end-to-end tests of the draw: entries, the draw and
// its published proof, offers and the backfill, keys and their rotation,
// privacy, replicas and the draw's events.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package draw
