// Package web embeds the shopper pages, the admin dashboard and their static
// files. There is no build step: plain HTML, CSS and ES modules, plus the
// chart library vendored under static/vendor by `make web-vendor`.
package web

import "embed"

// FS holds the pages (*.html) and static/.
//
//go:embed *.html static
var FS embed.FS
