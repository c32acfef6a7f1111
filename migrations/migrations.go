// Package migrations embeds the SQL migrations, the source of truth for the
// MySQL schema. It lives beside the .sql files because go:embed cannot reach
// into parent folders.
package migrations

import "embed"

// FS holds every *.sql migration, named NNNN_name.{up,down}.sql as
// golang-migrate expects.
//
//go:embed *.sql
var FS embed.FS
