package server

import "github.com/a2amock/a2amock/server/internal/binding"

// MaxIDBytes bounds every id a request carries — task, context, message,
// push-config, referenced task ids and tenant — on both bindings (it is the
// bound the HTTP+JSON routes have always had). A longer id is answered with
// InvalidParamsError before anything is stored, so an unknown 3 MiB id no
// longer costs its size several times over in the journal and the answer.
const MaxIDBytes = binding.MaxIDBytes

// MaxPushConfigsPerTask bounds the push configs one task holds: a client
// creating configs under ever new ids would otherwise grow the task (and the
// notifications each event fans out to) without bound.
const MaxPushConfigsPerTask = 100

// Defaults of the message and part bounds (Config.MaxMessageBytes,
// Config.MaxPartBytes).
const (
	DefaultMaxMessageBytes = 2 << 20
	DefaultMaxPartBytes    = 1 << 20
)
