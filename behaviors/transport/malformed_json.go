package transport

import (
	"bytes"
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"
)

var malformedJSONSpec = core.Spec{
	Name: "malformed-json",
	Doc: `Reproduces agents that send broken JSON: hand-rolled serializers,
string concatenation, an encoder interrupted by an error. The answer keeps
its status and a Content-Length that matches what is sent, but its JSON is
invalid: mode=cut drops the final closing brace, mode=trailing-comma puts
a comma before it. On a stream, the data of event number 'event' is
corrupted and the rest of the stream is intact. Card fetches are affected
only when the scope names them (op=agent-card). All bindings: on gRPC the
message (the unary answer, or the stream's message number 'event') gets a
field no protobuf decoder accepts, its length prefix fixed up; 'mode' has
no gRPC meaning. Tests that a client reports a parse error (JSON-RPC -32700 on its
side) instead of crashing, hanging or treating the answer as empty, and on
a stream either skips the bad event or fails the stream explicitly.`,
	New: func() core.Behavior { return &MalformedJSON{Mode: "cut", Event: 1} },
}

// MalformedJSON corrupts the JSON of answers.
type MalformedJSON struct {
	Mode  string `param:"mode" doc:"cut (drop the final closing brace) or trailing-comma (a comma before it)"`
	Event int    `param:"event" doc:"on a stream, the 1-based number of the event whose data is corrupted"`
}

// Validate implements Validator.
func (b *MalformedJSON) Validate() error {
	if b.Mode != "cut" && b.Mode != "trailing-comma" {
		return fmt.Errorf("mode must be cut or trailing-comma, not %q", b.Mode)
	}
	if b.Event < 1 {
		return fmt.Errorf("event must be 1 or more, not %d", b.Event)
	}
	return nil
}

// Apply implements Behavior.
func (b *MalformedJSON) Apply(x *core.Exchange) {
	x.OnTransport(func(t core.Transport) { t.Corrupt(b.Event, b.corrupt) })
}

// corrupt breaks the last JSON object in b; both modes leave an object
// that no JSON parser accepts.
func (b *MalformedJSON) corrupt(p []byte) []byte {
	i := bytes.LastIndexByte(p, '}')
	if i < 0 {
		return append([]byte("{"), p...)
	}
	if b.Mode == "trailing-comma" {
		return append(p[:i:i], append([]byte{','}, p[i:]...)...)
	}
	return append(p[:i:i], p[i+1:]...)
}
