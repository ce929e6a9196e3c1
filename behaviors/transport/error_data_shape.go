package transport

import (
	"encoding/json"
	"fmt"
	"net/textproto"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var errorDataShapeSpec = core.Spec{
	Name: "error-data-shape",
	Doc: `Reproduces the disagreement over the shape of a JSON-RPC error's data
member. v1.0 puts typed details (a list of google.rpc.ErrorInfo-like
objects) there; v0.3 SDKs put an object, or nothing. The JSON-RPC error
answers of every dialect get their data in 'shape': object (a list becomes
its first object element, nothing becomes {}), list (an object is wrapped
in a one-element list, nothing becomes []), string (the error message as a
JSON string) or absent (the member is dropped). Code and message are
unchanged; HTTP+JSON errors are not touched (see rest-error-dialect).
Tests that a client keeps the error's code and its typed meaning whatever
data holds, instead of failing to decode the error itself. Evidence: this
project's interop README: a2a-go v2's v0.3 compatibility client decodes
error.data only as a list, a2a-go v0.3.15 only as an object.`,
	New: func() core.Behavior { return &ErrorDataShape{Shape: "list"} },
}

// ErrorDataShape rewrites the data member of JSON-RPC errors.
type ErrorDataShape struct {
	Shape string `param:"shape" doc:"object, list, string or absent"`
}

// Validate implements Validator.
func (b *ErrorDataShape) Validate() error {
	if !slices.Contains([]string{"object", "list", "string", "absent"}, b.Shape) {
		return fmt.Errorf("shape must be object, list, string or absent, not %q", b.Shape)
	}
	return nil
}

// Apply implements Behavior.
func (b *ErrorDataShape) Apply(x *core.Exchange) {
	if x.Binding != wire.BindingJSONRPC {
		return
	}
	x.OnTransport(func(t core.Transport) {
		t.Rewrite(func(status int, _ textproto.MIMEHeader, body []byte) (int, []byte) {
			return status, b.rewrite(body)
		}, nil)
	})
}

// rewrite changes error.data of a JSON-RPC error envelope; any other body
// is returned as it is.
func (b *ErrorDataShape) rewrite(body []byte) []byte {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || env["error"] == nil {
		return body
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(env["error"], &e) != nil || e == nil {
		return body
	}
	data := e["data"]
	var list []json.RawMessage
	var obj map[string]json.RawMessage
	isList := json.Unmarshal(data, &list) == nil && list != nil
	isObj := !isList && json.Unmarshal(data, &obj) == nil && obj != nil
	switch b.Shape {
	case "object":
		switch {
		case isObj:
		case isList && len(list) > 0 && json.Unmarshal(list[0], &obj) == nil && obj != nil:
			e["data"] = list[0]
		default:
			e["data"] = json.RawMessage(`{}`)
		}
	case "list":
		switch {
		case isList:
		case isObj:
			e["data"] = append(append([]byte{'['}, data...), ']')
		default:
			e["data"] = json.RawMessage(`[]`)
		}
	case "string":
		var msg string
		_ = json.Unmarshal(e["message"], &msg)
		e["data"], _ = json.Marshal(msg)
	case "absent":
		delete(e, "data")
	}
	env["error"], _ = json.Marshal(e)
	out, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return out
}
