// Package codecs returns the codec of a dialect: the one explicit place
// that knows every codec the project implements (v1.0 in codecv10; v0.3,
// v0.2 and v0.1 in codecv0; v0.3's HTTP+JSON one in codecv03rest). Adding
// a dialect means a codec and a line here, with the dialect's descriptor
// in package wire.
package codecs

import (
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/codecv0"
	"github.com/a2amock/a2amock/wire/internal/codecv03rest"
	"github.com/a2amock/a2amock/wire/internal/codecv10"
)

// byDialect holds every codec by the dialect it speaks; it is built once
// and only read.
var byDialect = func() map[wire.Dialect]wire.Codec {
	m := map[wire.Dialect]wire.Codec{}
	for _, c := range append([]wire.Codec{codecv10.Codec}, codecv0.Codecs...) {
		m[c.Dialect()] = c
	}
	return m
}()

// For returns the codec of d, or nil if d is not a known dialect.
func For(d wire.Dialect) wire.Codec { return byDialect[d] }

// EncodeRESTError renders e as the v1.0 HTTP+JSON error: the HTTP status and
// a google.rpc.Status body such as
// {"error":{"code":404,"status":"NOT_FOUND","message":"…","details":[ErrorInfo]}}.
func EncodeRESTError(e *wire.Error) (status int, body []byte) { return codecv10.EncodeRESTError(e) }

// ForREST returns the HTTP+JSON codec of d and the encoder of its error
// answers (status and body); a nil codec when d has no HTTP+JSON binding.
// v1.0's is its JSON-RPC codec (the bodies are its params and results) with
// google.rpc.Status errors; v0.3's is codecv03rest, the v0.3 proto's JSON.
func ForREST(d wire.Dialect) (wire.Codec, func(*wire.Error) (int, []byte)) {
	switch d {
	case codecv10.Codec.Dialect():
		return codecv10.Codec, codecv10.EncodeRESTError
	case codecv03rest.Codec.Dialect():
		return codecv03rest.Codec, codecv03rest.EncodeError
	}
	return nil, nil
}
