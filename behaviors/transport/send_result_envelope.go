package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/textproto"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var sendResultEnvelopeSpec = core.Spec{
	Name: "send-result-envelope",
	Doc: `Reproduces v1.0 agents that answer SendMessage in the v0.3 shape: the
bare Task (or Message) as the result instead of the SendMessageResponse
wrapper {"task":…} / {"message":…}. With kind=true the bare object also
carries v0.3's "kind":"task" (or "message"). v1.0 dialect, unary
SendMessage, the HTTP bindings (the JSON-RPC result and the HTTP+JSON
body); gRPC answers are left alone.
Tests that a client reports an answer it cannot read rather than an empty
result: a v1.0 client looking for "task" finds neither a task nor a
message. Evidence: a2a-python#1192.`,
	New: func() core.Behavior { return &SendResultEnvelope{} },
}

// SendResultEnvelope unwraps the v1.0 SendMessage result.
type SendResultEnvelope struct {
	Kind bool `param:"kind" doc:"add v0.3's kind member to the bare object"`
}

// Apply implements Behavior.
func (b *SendResultEnvelope) Apply(x *core.Exchange) {
	if x.Op != wire.OpSend || !wire.Describe(x.Dialect).ResultEnvelope {
		return
	}
	rpc := x.Binding == wire.BindingJSONRPC
	declined := x.Declined()
	x.OnTransport(func(t core.Transport) {
		ok := t.Rewrite(func(status int, _ textproto.MIMEHeader, body []byte) (int, []byte) {
			if status != http.StatusOK {
				return status, body
			}
			return status, b.rewrite(body, rpc)
		}, nil)
		if !ok {
			declined("the binding's SendMessageResponse is not JSON")
		}
	})
}

func (b *SendResultEnvelope) rewrite(body []byte, rpc bool) []byte {
	var env map[string]json.RawMessage
	res := body
	if rpc {
		if json.Unmarshal(body, &env) != nil || env["result"] == nil {
			return body
		}
		res = env["result"]
	}
	var wrapper map[string]json.RawMessage
	if json.Unmarshal(res, &wrapper) != nil || len(wrapper) != 1 {
		return body
	}
	var inner json.RawMessage
	for k, v := range wrapper {
		if k != "task" && k != "message" {
			return body
		}
		inner = v
		if b.Kind {
			var obj map[string]json.RawMessage
			if json.Unmarshal(v, &obj) != nil {
				return body
			}
			obj["kind"] = json.RawMessage(fmt.Sprintf("%q", k))
			inner, _ = json.Marshal(obj)
		}
	}
	if !rpc {
		return inner
	}
	env["result"] = inner
	out, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return out
}
