package stream

import (
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire/codecs"

	"github.com/a2amock/a2amock/wire"
)

var streamErrorAsJSONSpec = core.Spec{
	Name: "stream-error-as-json",
	Doc: `Reproduces servers that answer a streaming request they fail with a
plain application/json error instead of an event stream: the JSON-RPC error
envelope (with the request's id) for JSON-RPC, a google.rpc.Status body for
HTTP+JSON (v0.3's with its error name and code beside it). No task is
created. On gRPC the call is answered with the
JSON-RPC error body as application/json, which gRPC clients refuse
(UNKNOWN: unexpected content-type). Some SDK clients only look for events and
report zero events and no error. Tests that a client checks the
Content-Type of a stream reply and surfaces the error it carries.`,
	New: func() core.Behavior {
		return &StreamErrorAsJSON{Code: wire.CodeInternal, Message: "streaming failed"}
	},
}

// StreamErrorAsJSON answers streaming requests with a plain JSON error.
type StreamErrorAsJSON struct {
	Code    int    `param:"code" doc:"the error code"`
	Message string `param:"message" doc:"the error message"`
	Status  int    `param:"status" doc:"HTTP status; 0 means 200 for JSON-RPC and the code's status for HTTP+JSON"`
}

// Validate implements Validator.
func (b *StreamErrorAsJSON) Validate() error {
	if b.Status != 0 && (b.Status < 100 || b.Status > 599) {
		return fmt.Errorf("status %d is not an HTTP status", b.Status)
	}
	return nil
}

// Apply implements Behavior.
func (b *StreamErrorAsJSON) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	rest := x.Binding == wire.BindingREST
	x.AnswerStreamWithJSON(func(rpcID []byte) (int, string, []byte) {
		e := &wire.Error{Code: b.Code, Message: b.Message}
		status, body := 200, []byte(nil)
		if rest {
			// The dialect's HTTP+JSON error body: v0.3's carries its
			// error name (type) and JSON-RPC code beside the Status.
			encode := codecs.EncodeRESTError
			if _, enc := codecs.ForREST(x.Dialect); enc != nil {
				encode = enc
			}
			status, body = encode(e)
		} else {
			body = wire.EncodeRPCError(rpcID, e, nil)
		}
		if b.Status != 0 {
			status = b.Status
		}
		return status, "application/json", body
	})
}
