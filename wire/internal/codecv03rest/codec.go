// Package codecv03rest is the A2A v0.3 HTTP+JSON (REST) encoding: the
// proto-JSON of the v0.3 proto (package a2a.v1) that the /v1/... routes
// carry, as a2a-go's a2av0 REST transport and a2a-python's v0.3 compat
// REST transport send and read it. It is a transcoding of the v0.3
// JSON-RPC codec (codecv0): a request body is rewritten into the v0.3
// JSON-RPC params and decoded by that codec, and each result or event that
// codec encodes is rewritten into its proto-JSON message, so both v0.3
// bindings map the canonical model alike (same required fields, same
// ignored-field reports, same defaults).
//
// What it writes: camelCase field names (proto3 JSON names, json_name
// "message" for SendMessageRequest.request, SendMessageResponse.msg,
// StreamResponse.msg and TaskStatus.update), enums by name
// (TASK_STATE_WORKING, ROLE_AGENT), no `kind` members, a Message's parts
// under `content`, a data part as {"data":{"data":{…}}}, a file part as
// {"file":{"fileWithUri"|"fileWithBytes","mimeType","name"}}, a push config
// as TaskPushNotificationConfig {name: "tasks/{id}/pushNotificationConfigs/{cid}",
// pushNotificationConfig}. Part.metadata and FilePart.name are written as
// the later v0.3 protos (a2a-python's copy) have them; the 0.3.0 proto
// lacks them. Message.referenceTaskIds, which no v0.3 proto has, is not
// written. What it reads: the same, and the proto field names too
// (message_id, …), which a2a-python sends (MessageToDict with
// preserving_proto_field_name), and enum numbers.
package codecv03rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/codecv0"
	"github.com/a2amock/a2amock/wire/internal/codecv10"
	"github.com/a2amock/a2amock/wire/internal/httpstatus"
)

// Codec is the v0.3 HTTP+JSON codec. DecodeParams takes the proto request
// message of the operation: the request body of send, stream and
// set-push-config (CreateTaskPushNotificationConfigRequest, its task in
// `parent`), and for the bodiless routes the message the path and query
// stand for: {"name":"tasks/{id}","historyLength":n} (GetTaskRequest),
// {"name":"tasks/{id}"} (cancel, subscribe), {"name":
// "tasks/{id}/pushNotificationConfigs/{cid}"} (get and delete push
// config), {"parent":"tasks/{id}"} (list push configs), {} (card).
var Codec wire.Codec = &codec{rpc: rpcCodec(wire.V03)}

func rpcCodec(d wire.Dialect) wire.Codec {
	for _, c := range codecv0.Codecs {
		if c.Dialect() == d {
			return c
		}
	}
	panic("codecv03rest: no codec for v" + string(d))
}

type codec struct{ rpc wire.Codec }

func (c *codec) Dialect() wire.Dialect       { return c.rpc.Dialect() }
func (c *codec) Methods() map[string]wire.Op { return c.rpc.Methods() }

func (c *codec) EncodeErrorData(e *wire.Error) []byte     { return c.rpc.EncodeErrorData(e) }
func (c *codec) EncodePush(ev wire.Event) ([]byte, error) { return c.rpc.EncodePush(ev) }

// obj is a decoded JSON object.
type obj = map[string]any

// decode reads JSON keeping numbers as written.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// EncodeResult implements wire.Codec: the response message of op.
func (c *codec) EncodeResult(op wire.Op, res *wire.Result) ([]byte, error) {
	b, err := c.rpc.EncodeResult(op, res)
	if err != nil {
		return nil, err
	}
	if op == wire.OpExtendedCard {
		// The card as the JSON card is rendered (see the binding's docs):
		// its members are the proto's, but for securitySchemes and security.
		return b, nil
	}
	if op == wire.OpDeletePush {
		return []byte("{}"), nil // google.protobuf.Empty
	}
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("a2a v0.3 HTTP+JSON: %s: %w", op, err)
	}
	var out any
	switch op {
	case wire.OpSend:
		m, _ := v.(obj)
		if m["kind"] == "message" {
			out = obj{"message": messageOut(m)}
		} else {
			out = obj{"task": taskOut(m)}
		}
	case wire.OpGetTask, wire.OpCancelTask:
		out = taskOut(asObj(v))
	case wire.OpSetPushConfig, wire.OpGetPushConfig:
		out = pushOut(asObj(v))
	case wire.OpListPushConfigs:
		list, _ := v.([]any)
		configs := make([]any, 0, len(list))
		for _, p := range list {
			configs = append(configs, pushOut(asObj(p)))
		}
		out = obj{"configs": configs}
	default:
		return nil, fmt.Errorf("a2a v0.3 HTTP+JSON: operation %s has no unary result", op)
	}
	return json.Marshal(out)
}

// EncodeEvent implements wire.Codec: the StreamResponse of one event.
func (c *codec) EncodeEvent(ev wire.Event) ([]byte, error) {
	b, err := c.rpc.EncodeEvent(ev)
	if err != nil {
		return nil, err
	}
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("a2a v0.3 HTTP+JSON: event: %w", err)
	}
	m := asObj(v)
	var out obj
	switch m["kind"] {
	case "task":
		out = obj{"task": taskOut(m)}
	case "message":
		out = obj{"message": messageOut(m)}
	case "status-update":
		out = obj{"statusUpdate": statusUpdateOut(m)}
	case "artifact-update":
		out = obj{"artifactUpdate": artifactUpdateOut(m)}
	default:
		return b, nil
	}
	return json.Marshal(out)
}

// ErrorName is the v0.3 name of the error with code (the JSON Schema's
// definition: TaskNotFoundError), "" for a code v0.3 does not name.
func ErrorName(code int) string {
	switch code {
	case wire.CodeParseError:
		return "JSONParseError"
	case wire.CodeInvalidRequest:
		return "InvalidRequestError"
	case wire.CodeMethodNotFound:
		return "MethodNotFoundError"
	case wire.CodeInvalidParams:
		return "InvalidParamsError"
	case wire.CodeInternal:
		return "InternalError"
	case wire.CodeTaskNotFound:
		return "TaskNotFoundError"
	case wire.CodeTaskNotCancelable:
		return "TaskNotCancelableError"
	case wire.CodePushNotSupported:
		return "PushNotificationNotSupportedError"
	case wire.CodeUnsupportedOperation:
		return "UnsupportedOperationError"
	case wire.CodeContentTypeNotSupported:
		return "ContentTypeNotSupportedError"
	case wire.CodeInvalidAgentResponse:
		return "InvalidAgentResponseError"
	case wire.CodeExtendedCardNotConfigured:
		return "AuthenticatedExtendedCardNotConfiguredError"
	}
	return ""
}

// EncodeError renders e as a v0.3 HTTP+JSON error: the v0.3 spec names no
// error body for this binding, so the body carries what each client reads:
// the google.rpc.Status `error` object of v1.0 (a2a-go's a2av0 REST
// transport parses it, and a2a-python 1.x's own v0.3 REST server sends it),
// and beside it `message`, as a2a-python 0.3's server sent it, `type`, the
// v0.3 error name, from which a2a-python's compat client raises the
// matching error, and `code`, the error's JSON-RPC code, from which
// @a2a-js/sdk's LegacyRestTransport does (with message; a body without a
// numeric code is a plain Error to it). The HTTP status is v1.0's mapping.
func EncodeError(e *wire.Error) (status int, body []byte) {
	if e == nil {
		e = wire.Errorf(wire.CodeInternal, "internal error")
	}
	status, st := codecv10.RESTErrorStatus(e)
	out := struct {
		Error   codecv10.RPCStatus `json:"error"`
		Type    string             `json:"type,omitempty"`
		Code    int                `json:"code"`
		Message string             `json:"message"`
	}{st, ErrorName(e.Code), e.Code, e.Message}
	b, err := json.Marshal(&out)
	if err != nil {
		return httpstatus.InternalServerError, []byte(`{"message":"error could not be rendered"}`)
	}
	return status, b
}

// ---------------------------------------------------------------------------
// v0.3 JSON-RPC shapes → proto-JSON.

func asObj(v any) obj {
	m, _ := v.(obj)
	return m
}

// copyKeys copies the members of in named in keys (renamed when a key is
// "from:to") that are present.
func copyKeys(out, in obj, keys ...string) obj {
	for _, k := range keys {
		from, to, ok := strings.Cut(k, ":")
		if !ok {
			to = from
		}
		if v, ok := in[from]; ok {
			out[to] = v
		}
	}
	return out
}

func mapList(v any, f func(obj) obj) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, x := range list {
		if m, ok := x.(obj); ok {
			out = append(out, f(m))
		} else {
			out = append(out, x)
		}
	}
	return out
}

var statesOut = map[string]string{
	"submitted": "TASK_STATE_SUBMITTED", "working": "TASK_STATE_WORKING",
	"completed": "TASK_STATE_COMPLETED", "failed": "TASK_STATE_FAILED",
	"canceled": "TASK_STATE_CANCELLED", "input-required": "TASK_STATE_INPUT_REQUIRED",
	"rejected": "TASK_STATE_REJECTED", "auth-required": "TASK_STATE_AUTH_REQUIRED",
	"unknown": "TASK_STATE_UNSPECIFIED",
}

func taskOut(m obj) obj {
	out := copyKeys(obj{}, m, "id", "contextId", "metadata")
	if s, ok := m["status"].(obj); ok {
		out["status"] = statusOut(s)
	}
	if _, ok := m["artifacts"]; ok {
		out["artifacts"] = mapList(m["artifacts"], artifactOut)
	}
	if _, ok := m["history"]; ok {
		out["history"] = mapList(m["history"], messageOut)
	}
	return out
}

func statusOut(s obj) obj {
	out := copyKeys(obj{}, s, "timestamp")
	if st, ok := s["state"].(string); ok {
		if name, known := statesOut[st]; known {
			out["state"] = name
		} else {
			out["state"] = st // a misbehavior's own state, passed on
		}
	}
	if msg, ok := s["message"].(obj); ok {
		out["message"] = messageOut(msg)
	}
	return out
}

func messageOut(m obj) obj {
	out := copyKeys(obj{}, m, "messageId", "contextId", "taskId", "metadata", "extensions")
	switch m["role"] {
	case "user":
		out["role"] = "ROLE_USER"
	case "agent":
		out["role"] = "ROLE_AGENT"
	default:
		if r, ok := m["role"]; ok {
			out["role"] = r
		}
	}
	if _, ok := m["parts"]; ok {
		out["content"] = mapList(m["parts"], partOut)
	}
	return out
}

func partOut(p obj) obj {
	out := copyKeys(obj{}, p, "metadata")
	switch p["kind"] {
	case "text":
		out["text"] = p["text"]
	case "data":
		out["data"] = obj{"data": p["data"]}
	case "file":
		f := asObj(p["file"])
		out["file"] = copyKeys(obj{}, f, "uri:fileWithUri", "bytes:fileWithBytes", "mimeType", "name")
	default:
		return p
	}
	return out
}

func artifactOut(a obj) obj {
	out := copyKeys(obj{}, a, "artifactId", "name", "description", "metadata", "extensions")
	if _, ok := a["parts"]; ok {
		out["parts"] = mapList(a["parts"], partOut)
	}
	return out
}

func statusUpdateOut(m obj) obj {
	out := copyKeys(obj{}, m, "taskId", "contextId", "final", "metadata")
	if s, ok := m["status"].(obj); ok {
		out["status"] = statusOut(s)
	}
	return out
}

func artifactUpdateOut(m obj) obj {
	out := copyKeys(obj{}, m, "taskId", "contextId", "append", "lastChunk", "metadata")
	if a, ok := m["artifact"].(obj); ok {
		out["artifact"] = artifactOut(a)
	}
	return out
}

// pushOut renders a v0.3 TaskPushNotificationConfig {taskId,
// pushNotificationConfig} as the proto's {name, pushNotificationConfig}.
func pushOut(m obj) obj {
	pc := asObj(m["pushNotificationConfig"])
	id, _ := pc["id"].(string)
	task, _ := m["taskId"].(string)
	name := "tasks/" + task + "/pushNotificationConfigs/" + id
	if id == "" {
		name = "tasks/" + task + "/pushNotificationConfigs"
	}
	return obj{"name": name, "pushNotificationConfig": pc}
}
