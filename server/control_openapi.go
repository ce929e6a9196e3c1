package server

import (
	"bytes"
	_ "embed" // the OpenAPI description
)

//go:generate cp openapi.json ../docs/openapi.json

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.1 description of the control API
// (everything under /_a2amock/), served at /_a2amock/openapi.json and
// committed as docs/openapi.json.
func OpenAPI() []byte { return bytes.Clone(openAPIDoc) }
