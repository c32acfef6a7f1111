// Package web embeds the pages the server serves at /.
package web

import "embed"

// FS holds the static pages.
//
//go:embed index.html
var FS embed.FS
