// Package browser holds the end-to-end tests of the pages in a real headless
// Chromium: shop, drops, draw, room, payments, the admin dashboard. Every tab
// holds e2etest.HoldBrowser, so only one test binary drives a browser at a
// time.
//
// Each test starts the whole server in-process with e2etest.Start against
// real MySQL and Redis; see docs/testing.md for how to provide them.
package browser
