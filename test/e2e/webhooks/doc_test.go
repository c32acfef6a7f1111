// Package webhooks holds the end-to-end tests of the webhook outbox seen from
// a receiver: deliveries, signatures, retries and the operations on them.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package webhooks
