// Package api holds the contract of the server's HTTP API: openapi.yaml, an
// OpenAPI 3.0.3 description of every route internal/httpapi registers, kept
// in step with the code by internal/httpapi/openapi_test.go.
package api

import _ "embed"

// OpenAPI is the contents of openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
