package codecv03rest

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/httpstatus"
)

// DecodeParams implements wire.Codec: it rewrites the proto request
// message of op (see Codec) into the v0.3 JSON-RPC params and decodes
// those. Members it does not know are passed on, so the v0.3 codec
// reports them as ignored fields as it does for JSON-RPC.
func (c *codec) DecodeParams(op wire.Op, body []byte) (*wire.Request, *wire.Error) {
	m := obj{}
	if len(body) > 0 {
		v, err := decode(body)
		var ok bool
		if m, ok = v.(obj); err != nil || !ok {
			return nil, wire.Errorf(wire.CodeParseError, "request body is not a JSON object").WithHTTPStatus(httpstatus.BadRequest)
		}
	}
	var params obj
	switch op {
	case wire.OpSend, wire.OpStream:
		params = sendIn(m)
	case wire.OpGetTask, wire.OpCancelTask, wire.OpSubscribe:
		id, e := resourceID(m, "name", "tasks/")
		if e != nil {
			return nil, e
		}
		params = obj{"id": id}
		if op == wire.OpGetTask {
			copyKeys(params, m, "historyLength", "history_length:historyLength")
		}
	case wire.OpListPushConfigs:
		id, e := resourceID(m, "parent", "tasks/")
		if e != nil {
			return nil, e
		}
		params = obj{"id": id}
	case wire.OpGetPushConfig, wire.OpDeletePush:
		name, e := resourceID(m, "name", "tasks/")
		if e != nil {
			return nil, e
		}
		task, cfg, ok := strings.Cut(name, "/pushNotificationConfigs/")
		if !ok || task == "" || cfg == "" {
			return nil, wire.ErrInvalidParams("name", "must be tasks/{id}/pushNotificationConfigs/{configId}").WithHTTPStatus(httpstatus.BadRequest)
		}
		params = obj{"id": task, "pushNotificationConfigId": cfg}
	case wire.OpSetPushConfig:
		var e *wire.Error
		if params, e = setPushIn(m); e != nil {
			return nil, e
		}
	case wire.OpExtendedCard:
		params = obj{}
	default:
		return nil, wire.Errorf(wire.CodeMethodNotFound, "operation %s does not exist in the A2A v0.3 HTTP+JSON binding", op).WithHTTPStatus(httpstatus.NotFound)
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidParams, "request: %v", err).WithHTTPStatus(httpstatus.BadRequest)
	}
	req, e := c.rpc.DecodeParams(op, b)
	if e != nil {
		return nil, inProtoTerms(e)
	}
	return req, nil
}

// partIndex finds a part's place in a field path (message.parts[2]).
var partIndex = regexp.MustCompile(`^message\.parts(\[\d+\])?`)

// inProtoTerms restates an InvalidParams error of the v0.3 JSON-RPC codec,
// which the body was transcoded for, in the v0.3 proto's JSON the client
// sent: a message's parts are its content, a part is told by its member
// (there is no kind), a role is ROLE_USER or ROLE_AGENT, a file has
// fileWithBytes or fileWithUri.
func inProtoTerms(e *wire.Error) *wire.Error {
	f, _ := e.Data["field"].(string)
	problem, ok := strings.CutPrefix(e.Message, "invalid params: "+f+": ")
	if e.Code != wire.CodeInvalidParams || f == "" || !ok {
		return e
	}
	if strings.HasSuffix(f, ".kind") && strings.HasPrefix(f, "message.parts[") {
		f, problem = strings.TrimSuffix(f, ".kind"), "must have text, file or data"
	}
	f = partIndex.ReplaceAllString(f, "message.content$1")
	switch {
	case f == "message.role":
		problem = strings.Replace(problem, `"user" or "agent"`, "ROLE_USER or ROLE_AGENT", 1)
	case strings.HasSuffix(f, ".file"):
		problem = strings.Replace(problem, "bytes or uri", "fileWithBytes or fileWithUri", 1)
	}
	out := wire.ErrInvalidParams(f, problem)
	out.HTTPStatus = e.HTTPStatus
	for k, v := range e.Data {
		if k != "field" {
			out.With(k, v)
		}
	}
	return out
}

// resourceID reads the resource name in member key ("tasks/{id}") and
// returns what follows prefix.
func resourceID(m obj, key, prefix string) (string, *wire.Error) {
	name, _ := m[key].(string)
	id, ok := strings.CutPrefix(name, prefix)
	if !ok || id == "" {
		return "", wire.ErrInvalidParams(key, "must be "+prefix+"{id}").WithHTTPStatus(httpstatus.BadRequest)
	}
	return id, nil
}

// field returns the member named by its JSON name or its proto name.
func field(m obj, jsonName, protoName string) (any, bool) {
	if v, ok := m[jsonName]; ok {
		return v, true
	}
	v, ok := m[protoName]
	return v, ok
}

// sendIn rewrites a SendMessageRequest into MessageSendParams.
func sendIn(m obj) obj {
	out := obj{}
	for k, v := range m {
		switch k {
		case "message", "request":
			if _, both := m["message"]; both && k == "request" {
				continue
			}
			out["message"] = messageIn(v)
		case "configuration":
			out["configuration"] = configIn(v)
		default:
			out[k] = v
		}
	}
	return out
}

var protoNames = map[string]string{
	"message_id": "messageId", "context_id": "contextId", "task_id": "taskId",
	"reference_task_ids": "referenceTaskIds", "accepted_output_modes": "acceptedOutputModes",
	"history_length": "historyLength", "mime_type": "mimeType",
}

// camel renames the proto field names of m to their JSON names.
func camel(m obj) obj {
	out := make(obj, len(m))
	for k, v := range m {
		if j, ok := protoNames[k]; ok {
			if _, both := m[j]; both {
				continue
			}
			k = j
		}
		out[k] = v
	}
	return out
}

func messageIn(v any) any {
	m, ok := v.(obj)
	if !ok {
		return v
	}
	out := obj{"kind": "message"}
	for k, val := range camel(m) {
		switch k {
		case "role":
			out["role"] = roleIn(val)
		case "content":
			list, ok := val.([]any)
			if !ok {
				out["parts"] = val
				continue
			}
			parts := make([]any, len(list))
			for i, p := range list {
				parts[i] = partIn(p)
			}
			out["parts"] = parts
		default:
			out[k] = val
		}
	}
	return out
}

func roleIn(v any) any {
	switch v {
	case "ROLE_USER", json.Number("1"):
		return "user"
	case "ROLE_AGENT", json.Number("2"):
		return "agent"
	}
	return v
}

func partIn(v any) any {
	p, ok := v.(obj)
	if !ok {
		return v
	}
	out := obj{}
	for k, val := range p {
		switch k {
		case "text":
			out["kind"], out["text"] = "text", val
		case "data":
			out["kind"] = "data"
			if d, ok := val.(obj); ok {
				if inner, ok := d["data"]; ok && len(d) == 1 {
					val = inner
				}
			}
			out["data"] = val
		case "file":
			out["kind"] = "file"
			f, ok := val.(obj)
			if !ok {
				out["file"] = val
				continue
			}
			file := obj{}
			for fk, fv := range camel(f) {
				switch fk {
				case "fileWithUri", "file_with_uri":
					file["uri"] = fv
				case "fileWithBytes", "file_with_bytes":
					file["bytes"] = fv
				default:
					file[fk] = fv
				}
			}
			out["file"] = file
		default:
			out[k] = val
		}
	}
	return out
}

func configIn(v any) any {
	m, ok := v.(obj)
	if !ok {
		return v
	}
	out := obj{}
	for k, val := range camel(m) {
		switch k {
		case "pushNotification", "push_notification":
			out["pushNotificationConfig"] = val
		default:
			out[k] = val
		}
	}
	return out
}

// setPushIn rewrites a CreateTaskPushNotificationConfigRequest {parent,
// configId, config: TaskPushNotificationConfig} into
// TaskPushNotificationConfig params {taskId, pushNotificationConfig}. The
// proto's HTTP rule takes `config` alone as the body (body: "config"),
// the SDKs send the whole request: a body without `config` is read as
// the config itself.
func setPushIn(m obj) (obj, *wire.Error) {
	task, e := resourceID(m, "parent", "tasks/")
	if e != nil {
		return nil, e
	}
	cfg, ok := m["config"].(obj)
	if !ok {
		cfg = m
	}
	pcv, _ := field(cfg, "pushNotificationConfig", "push_notification_config")
	pc, ok := pcv.(obj)
	if !ok {
		// Missing or not an object: the v0.3 codec names the field.
		return obj{"taskId": task, "pushNotificationConfig": pcv}, nil
	}
	if _, has := pc["id"]; !has {
		if id, ok := field(m, "configId", "config_id"); ok && id != "" {
			pc["id"] = id
		}
	}
	return obj{"taskId": task, "pushNotificationConfig": pc}, nil
}
