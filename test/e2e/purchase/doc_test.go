// Package purchase holds the end-to-end tests of the purchase through HTTP:
// the API's answers and error codes, sold-out marks, the admission gate, rate
// limits, pauses, prices, the order's life, the dashboard stream and the
// purchase storms on a single Redis and a cluster, and the fuzz targets with
// their corpus.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package purchase
