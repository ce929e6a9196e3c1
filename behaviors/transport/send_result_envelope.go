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
	Doc: `Reproduces agents that answer SendMessage in the other version's
shape, as one built on the other version's SDK does: the bare Task (or
Message) where v1.0 wraps it in {"task":…} / {"message":…}, and that
wrapper where v0.3 and v0.2 answer the bare object. Where the answer is
the SendMessageResponse wrapper {"task":…} / {"message":…} (v1.0 over
JSON-RPC and HTTP+JSON, and v0.3 over HTTP+JSON, whose answers are
proto-shaped), the agent answers with the bare Task (or Message), as
v0.3's JSON-RPC does; where the answer is the bare object (message/send
in v0.3 and v0.2, tasks/send in v0.1), it wraps it as v1.0 does, keyed by
what it is. With kind=true the object carries v0.3's "kind":"task" (or
"message"): added to a bare object, kept inside the wrapper; without it
the bare object has none and the wrapped one loses it, as v1.0 objects
have none. Unary SendMessage on the HTTP bindings (the JSON-RPC result and
the HTTP+JSON body); gRPC answers are left alone (declined in the
journal). Tests that a client reports an answer it cannot read rather
than an empty result: a v1.0 client looking for "task" finds neither a
task nor a message, a v0.3 client finds no "kind" to tell a Task from a
Message. Evidence: a2a-python#1192.`,
	New: func() core.Behavior { return &SendResultEnvelope{} },
}

// SendResultEnvelope answers SendMessage in the other version's result
// shape: it unwraps a wrapped result and wraps a bare one.
type SendResultEnvelope struct {
	Kind bool `param:"kind" doc:"the object carries v0.3's kind member (added when unwrapping, kept when wrapping)"`
}

// Apply implements Behavior.
func (b *SendResultEnvelope) Apply(x *core.Exchange) {
	if x.Op != wire.OpSend {
		return
	}
	rpc := x.Binding == wire.BindingJSONRPC
	// HTTP+JSON answers are proto-shaped in every dialect that has the
	// binding (v0.3's SendMessageResponse is v1.0's); over JSON-RPC only
	// v1.0 wraps its result.
	wrapped := !rpc || wire.Describe(x.Dialect).ResultEnvelope
	declined := x.Declined()
	x.OnTransport(func(t core.Transport) {
		ok := t.Rewrite(func(status int, _ textproto.MIMEHeader, body []byte) (int, []byte) {
			if status != http.StatusOK {
				return status, body
			}
			return status, b.rewrite(body, rpc, wrapped)
		}, nil)
		if !ok {
			declined("the binding's SendMessageResponse is not JSON")
		}
	})
}

// rewrite turns the answer body into the other shape: the result of the
// JSON-RPC envelope when rpc, else the whole body. A body it does not
// recognise is left as it is.
func (b *SendResultEnvelope) rewrite(body []byte, rpc, wrapped bool) []byte {
	var env map[string]json.RawMessage
	res := body
	if rpc {
		if json.Unmarshal(body, &env) != nil || env["result"] == nil {
			return body
		}
		res = env["result"]
	}
	var out []byte
	if wrapped {
		out = b.unwrap(res)
	} else {
		out = b.wrap(res)
	}
	if out == nil {
		return body
	}
	if !rpc {
		return out
	}
	env["result"] = out
	out, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return out
}

// unwrap returns the object inside a {"task":…} or {"message":…} wrapper,
// with v0.3's kind when asked; nil when res is no such wrapper.
func (b *SendResultEnvelope) unwrap(res []byte) []byte {
	var wrapper map[string]json.RawMessage
	if json.Unmarshal(res, &wrapper) != nil || len(wrapper) != 1 {
		return nil
	}
	for k, v := range wrapper {
		if k != "task" && k != "message" {
			return nil
		}
		if !b.Kind {
			return v
		}
		return withKind(v, k, true)
	}
	return nil
}

// wrap returns the bare Task or Message res inside the wrapper v1.0 gives
// it, keyed by its kind (a v0.1 Task has none: its status says it is a
// task), with its kind member kept only when asked; nil when res is
// neither.
func (b *SendResultEnvelope) wrap(res []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(res, &obj) != nil {
		return nil
	}
	var key string
	switch kind := string(obj["kind"]); {
	case kind == `"task"` || kind == "" && obj["status"] != nil:
		key = "task"
	case kind == `"message"` || kind == "" && obj["role"] != nil:
		key = "message"
	default:
		return nil
	}
	inner := withKind(res, key, b.Kind)
	if inner == nil {
		return nil
	}
	out, err := json.Marshal(map[string]json.RawMessage{key: inner})
	if err != nil {
		return nil
	}
	return out
}

// withKind returns the object v with its kind member set to kind (on) or
// removed (off); nil when v is no object.
func withKind(v json.RawMessage, kind string, on bool) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		return nil
	}
	if on {
		obj["kind"] = json.RawMessage(fmt.Sprintf("%q", kind))
	} else {
		delete(obj, "kind")
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return out
}
