package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/textproto"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var unknownFieldsSpec = core.Spec{
	Name: "unknown-fields",
	Doc: `Reproduces agents of a later version (or with an extension) whose
answers carry fields the client's version does not define: every object of
the answer (the JSON-RPC result, the HTTP+JSON body, each stream event's
data) gets a member named 'field' with the string 'value'. Members whose
values belong to the application or name things (metadata, data parts,
extension params, security schemes and requirements) are left alone, so
what the client reads means what it meant. Versions add fields within a
major version, as proto3 does, and a reader of JSON ignores the members it
does not know. Card fetches are affected only when the scope names them
(op=agent-card). The HTTP bindings; gRPC answers are left alone (protobuf
keeps unknown fields by design). Tests that a client reads the answer
anyway instead of refusing it as malformed (a strict decoder that rejects
unknown members).`,
	New: func() core.Behavior {
		return &UnknownFields{Field: "futureField", Value: "a field of a later version"}
	},
}

// UnknownFields adds a member to every protocol object of an answer.
type UnknownFields struct {
	Field string `param:"field" doc:"name of the member added to every object"`
	Value string `param:"value" doc:"its string value"`
}

// Validate implements Validator.
func (b *UnknownFields) Validate() error {
	if b.Field == "" {
		return fmt.Errorf("field must name a member")
	}
	return nil
}

// Apply implements Behavior.
func (b *UnknownFields) Apply(x *core.Exchange) {
	if x.Binding == wire.BindingGRPC {
		return
	}
	rpc := x.Binding == wire.BindingJSONRPC && x.Op != core.OpCard
	x.OnTransport(func(t core.Transport) {
		t.Rewrite(func(status int, _ textproto.MIMEHeader, body []byte) (int, []byte) {
			if status != http.StatusOK {
				return status, body
			}
			return status, b.rewrite(body, rpc)
		}, nil)
		t.Corrupt(0, func(frame []byte) []byte { return b.rewriteFrame(frame, rpc) })
	})
}

// opaque names the members whose values are the application's or name
// things: no member is added inside them.
var opaque = map[string]bool{"metadata": true, "data": true, "params": true,
	"securitySchemes": true, "security": true, "securityRequirements": true, "schemes": true}

// rewrite adds the member to every object of a JSON answer: of the result
// when rpc (the JSON-RPC envelope itself is not the agent's), of the whole
// body otherwise. What does not decode is left as it is.
func (b *UnknownFields) rewrite(body []byte, rpc bool) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return body
	}
	if env, ok := v.(map[string]any); rpc && ok {
		if res, ok := env["result"]; ok {
			b.add(res)
		}
	} else if !rpc {
		b.add(v)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// rewriteFrame rewrites the data lines of an SSE frame.
func (b *UnknownFields) rewriteFrame(frame []byte, rpc bool) []byte {
	lines := bytes.Split(frame, []byte("\n"))
	for i, l := range lines {
		if data, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			lines[i] = append([]byte("data: "), b.rewrite(bytes.TrimSpace(data), rpc)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

func (b *UnknownFields) add(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !opaque[k] {
				b.add(e)
			}
		}
		if _, taken := v[b.Field]; !taken {
			v[b.Field] = b.Value
		}
	case []any:
		for _, e := range v {
			b.add(e)
		}
	}
}
