// Package codecv10 is the codec of A2A v1.0: ProtoJSON of the lf.a2a.v1
// proto, for JSON-RPC params and results and the HTTP+JSON bodies. Reach
// it through package codecs.
package codecv10

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/httpstatus"
)

// Codec is the v1.0 codec.
var Codec wire.Codec = v10Codec{}

// v10Codec speaks A2A v1.0: ProtoJSON of the lf.a2a.v1 proto (camelCase
// keys, enum names, base64 bytes, RFC 3339 timestamps), no `kind` and no
// `final`.
type v10Codec struct{}

// Dialect implements Codec.
func (v10Codec) Dialect() wire.Dialect { return wire.V10 }

// Methods implements Codec. The returned map is shared and must not be
// modified.
func (v10Codec) Methods() map[string]wire.Op { return wire.Describe(wire.V10).Methods }

// ListTasks page sizes (v1.0 §ListTasksRequest).
const (
	v10DefaultPageSize = 50
	v10MaxPageSize     = 100
)

// ---------------------------------------------------------------------------
// Canonical → wire. The wire structs' field order is the proto's, so output
// reads like what the SDKs produce; omitempty mirrors ProtoJSON, which leaves
// out fields at their default value.

type v10Auth struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

type v10PushConfig struct {
	Tenant         string   `json:"tenant,omitempty"`
	ID             string   `json:"id,omitempty"`
	TaskID         string   `json:"taskId,omitempty"`
	URL            string   `json:"url"`
	Token          string   `json:"token,omitempty"`
	Authentication *v10Auth `json:"authentication,omitempty"`
}

type v10ListPush struct {
	Configs       []v10PushConfig `json:"configs"`
	NextPageToken string          `json:"nextPageToken"`
}

// v10ErrorInfo is a google.rpc.ErrorInfo detail.
type v10ErrorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

type v10RESTError struct {
	Error RPCStatus `json:"error"`
}

// RPCStatus is a google.rpc.Status in JSON, as the v1.0 HTTP+JSON error
// body holds it under "error" (and v0.3's beside its own fields).
type RPCStatus struct {
	Code    int            `json:"code"`
	Status  string         `json:"status"`
	Message string         `json:"message"`
	Details []v10ErrorInfo `json:"details,omitempty"`
}

func encodePush10(pc *wire.PushConfig) v10PushConfig {
	out := v10PushConfig{Tenant: pc.Tenant, ID: pc.ID, TaskID: pc.TaskID, URL: pc.URL, Token: pc.Token}
	// v1.0 has a single scheme where v0.x had a list; the first one is the
	// one a v0.x client would have preferred. Without a scheme there is no
	// valid AuthenticationInfo (scheme is REQUIRED), so none is written.
	if len(pc.AuthSchemes) > 0 && pc.AuthSchemes[0] != "" {
		out.Authentication = &v10Auth{Scheme: pc.AuthSchemes[0], Credentials: pc.AuthCredentials}
	}
	return out
}

// resultBufferSize is where the buffer of a task or event starts: an
// honest send's answer fits in it.
const resultBufferSize = 1024

// EncodeResult implements Codec. A push-config delete renders as JSON null,
// which is what the SDKs send as the JSON-RPC result of a
// google.protobuf.Empty; a REST binding may prefer to answer `{}`.
func (c v10Codec) EncodeResult(op wire.Op, res *wire.Result) ([]byte, error) {
	return c.AppendResult(make([]byte, 0, resultBufferSize), op, res)
}

// AppendResult implements wire.ResultAppender: what EncodeResult returns,
// appended to dst. Tasks, messages and pages are written straight from the
// canonical model; push configs are marshalled.
func (v10Codec) AppendResult(dst []byte, op wire.Op, res *wire.Result) ([]byte, error) {
	if res == nil {
		return nil, fmt.Errorf("a2a: v1.0: no result for %s", op)
	}
	switch op {
	case wire.OpSend:
		switch {
		case res.Task != nil && res.Message != nil:
			return nil, errors.New("a2a: v1.0: send result has both a task and a message")
		case res.Task != nil:
			return appendEvent10(dst, wire.Event{Task: res.Task})
		case res.Message != nil:
			return appendEvent10(dst, wire.Event{Message: res.Message})
		default:
			return nil, errors.New("a2a: v1.0: send result has neither a task nor a message")
		}
	case wire.OpGetTask, wire.OpCancelTask:
		if res.Task == nil {
			return nil, fmt.Errorf("a2a: v1.0: %s result has no task", op)
		}
		return appendTask10(dst, res.Task)
	case wire.OpListTasks:
		if res.Page == nil {
			return nil, errors.New("a2a: v1.0: list-tasks result has no page")
		}
		return appendTaskPage10(dst, res.Page)
	case wire.OpSetPushConfig, wire.OpGetPushConfig:
		if res.PushConfig == nil {
			return nil, fmt.Errorf("a2a: v1.0: %s result has no push config", op)
		}
		w := encodePush10(res.PushConfig)
		return appendAny(dst, &w)
	case wire.OpListPushConfigs:
		out := v10ListPush{Configs: make([]v10PushConfig, len(res.PushConfigs)), NextPageToken: res.NextPushConfigsToken}
		for i := range res.PushConfigs {
			out.Configs[i] = encodePush10(&res.PushConfigs[i])
		}
		return appendAny(dst, &out)
	case wire.OpDeletePush:
		return append(dst, "null"...), nil
	case wire.OpExtendedCard:
		if len(res.Card) == 0 {
			return nil, errors.New("a2a: v1.0: extended-card result has no card")
		}
		return append(dst, res.Card...), nil
	}
	return nil, fmt.Errorf("a2a: v1.0: %s has no unary result", op)
}

// AppendEvent implements wire.ResultAppender.
func (v10Codec) AppendEvent(dst []byte, ev wire.Event) ([]byte, error) {
	if err := checkEvent10(ev); err != nil {
		return nil, err
	}
	return appendEvent10(dst, ev)
}

func checkEvent10(ev wire.Event) error {
	n := 0
	for _, set := range []bool{ev.Task != nil, ev.Message != nil, ev.Status != nil, ev.Artifact != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("a2a: v1.0: an event needs exactly one member, it has %d", n)
	}
	return nil
}

// EncodeEvent implements Codec: a StreamResponse wrapper with exactly one of
// task, message, statusUpdate, artifactUpdate.
func (c v10Codec) EncodeEvent(ev wire.Event) ([]byte, error) {
	return c.AppendEvent(make([]byte, 0, resultBufferSize), ev)
}

// EncodePush implements Codec: v1.0 webhooks carry the same StreamResponse
// as a stream event.
func (c v10Codec) EncodePush(ev wire.Event) ([]byte, error) { return c.EncodeEvent(ev) }

// v10ErrorDomain is the ErrorInfo domain of A2A errors (v1.0 §6.1).
const v10ErrorDomain = "a2a-protocol.org"

func errorInfo10(e *wire.Error) (v10ErrorInfo, bool) {
	reason := wire.Reason(e.Code)
	if reason == "" {
		return v10ErrorInfo{}, false
	}
	info := v10ErrorInfo{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: reason, Domain: v10ErrorDomain}
	if len(e.Data) > 0 {
		// ErrorInfo metadata is map<string, string>: strings go as they
		// are, anything else as its JSON text.
		info.Metadata = make(map[string]string, len(e.Data))
		for k, v := range e.Data {
			switch v := v.(type) {
			case string:
				info.Metadata[k] = v
			case fmt.Stringer:
				info.Metadata[k] = v.String()
			default:
				b, err := json.Marshal(v)
				if err != nil {
					b = []byte(fmt.Sprint(v))
				}
				info.Metadata[k] = string(b)
			}
		}
	}
	return info, true
}

// EncodeErrorData implements Codec: a one-element array holding a
// google.rpc.ErrorInfo for A2A errors, nil for the generic JSON-RPC codes.
func (v10Codec) EncodeErrorData(e *wire.Error) []byte {
	if e == nil {
		return nil
	}
	info, ok := errorInfo10(e)
	if !ok {
		return nil
	}
	b, err := json.Marshal([]v10ErrorInfo{info})
	if err != nil {
		return nil
	}
	return b
}

// RESTErrorStatus is the HTTP status and the google.rpc.Status of e, as
// EncodeRESTError renders them, for a binding that wraps the status in a
// body of its own (v0.3's HTTP+JSON) without parsing it back.
func RESTErrorStatus(e *wire.Error) (int, RPCStatus) {
	status, name := e.Status()
	st := RPCStatus{Code: status, Status: name, Message: e.Message}
	if info, ok := errorInfo10(e); ok {
		st.Details = []v10ErrorInfo{info}
	}
	return status, st
}

// EncodeRESTError renders e as the v1.0 HTTP+JSON error (reach it as
// codecs.EncodeRESTError): the HTTP status and a google.rpc.Status body such as
// {"error":{"code":404,"status":"NOT_FOUND","message":"…","details":[ErrorInfo]}}.
func EncodeRESTError(e *wire.Error) (status int, body []byte) {
	if e == nil {
		e = wire.Errorf(wire.CodeInternal, "internal error")
	}
	status, st := RESTErrorStatus(e)
	b, err := json.Marshal(&v10RESTError{Error: st})
	if err != nil {
		return httpstatus.InternalServerError, []byte(`{"error":{"code":500,"status":"INTERNAL","message":"error could not be rendered"}}`)
	}
	return status, b
}
