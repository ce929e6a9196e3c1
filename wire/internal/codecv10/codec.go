// Package codecv10 is the codec of A2A v1.0: ProtoJSON of the lf.a2a.v1
// proto, for JSON-RPC params and results and the HTTP+JSON bodies. Reach
// it through package codecs.
package codecv10

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/httpstatus"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
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

type v10Part struct {
	Text      *string        `json:"text,omitempty"`
	Raw       *string        `json:"raw,omitempty"`
	URL       *string        `json:"url,omitempty"`
	Data      any            `json:"data,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Filename  string         `json:"filename,omitempty"`
	MediaType string         `json:"mediaType,omitempty"`
}

type v10Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []v10Part      `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
}

type v10Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []v10Part      `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extensions  []string       `json:"extensions,omitempty"`
}

type v10Task struct {
	ID        string                      `json:"id"`
	ContextID string                      `json:"contextId,omitempty"`
	Status    wirejson.Status[v10Message] `json:"status"`
	Artifacts []v10Artifact               `json:"artifacts,omitempty"`
	History   []v10Message                `json:"history,omitempty"`
	Metadata  map[string]any              `json:"metadata,omitempty"`
}

type v10StatusUpdate struct {
	TaskID    string                      `json:"taskId"`
	ContextID string                      `json:"contextId"`
	Status    wirejson.Status[v10Message] `json:"status"`
	Metadata  map[string]any              `json:"metadata,omitempty"`
}

type v10ArtifactUpdate struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  v10Artifact    `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// v10StreamResponse is both StreamResponse and, with only Task or Message
// set, SendMessageResponse.
type v10StreamResponse struct {
	Task           *v10Task           `json:"task,omitempty"`
	Message        *v10Message        `json:"message,omitempty"`
	StatusUpdate   *v10StatusUpdate   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *v10ArtifactUpdate `json:"artifactUpdate,omitempty"`
}

type v10ListTasks struct {
	Tasks         []v10Task `json:"tasks"`
	NextPageToken string    `json:"nextPageToken"`
	PageSize      int       `json:"pageSize"`
	TotalSize     int       `json:"totalSize"`
}

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
	Error v10RPCStatus `json:"error"`
}

type v10RPCStatus struct {
	Code    int            `json:"code"`
	Status  string         `json:"status"`
	Message string         `json:"message"`
	Details []v10ErrorInfo `json:"details,omitempty"`
}

// v10EmptyData stands in for a data part without a value: ProtoJSON would
// write null, which most clients read as "no member set", leaving a part with
// no content.
var v10EmptyData = struct{}{}

func encodeParts10(parts []wire.Part) ([]v10Part, error) {
	out := make([]v10Part, len(parts))
	for i := range parts {
		p := &parts[i]
		w := &out[i]
		w.Metadata, w.Filename, w.MediaType = p.Metadata, p.Filename, p.MediaType
		switch p.Kind {
		case wire.PartText:
			w.Text = &p.Text
		case wire.PartFile:
			if p.URL != "" && p.Raw == nil {
				w.URL = &p.URL
			} else {
				// A file with bytes (even empty ones) is a raw part; when a
				// canonical part carries both, the bytes win, as they are
				// the content and the URL only a pointer to it.
				s := base64.StdEncoding.EncodeToString(p.Raw)
				w.Raw = &s
			}
		case wire.PartData:
			w.Data = p.Data
			if w.Data == nil {
				w.Data = v10EmptyData
			}
		default:
			return nil, fmt.Errorf("a2a: v1.0: part %d has unknown kind %q", i, p.Kind)
		}
	}
	return out, nil
}

func encodeMessage10(m *wire.Message) (v10Message, error) {
	parts, err := encodeParts10(m.Parts)
	if err != nil {
		return v10Message{}, err
	}
	return v10Message{
		MessageID:        m.MessageID,
		ContextID:        m.ContextID,
		TaskID:           m.TaskID,
		Role:             wire.RoleToV10(m.Role),
		Parts:            parts,
		Metadata:         m.Metadata,
		Extensions:       m.Extensions,
		ReferenceTaskIDs: m.ReferenceTaskIDs,
	}, nil
}

func encodeStatus10(s *wire.TaskStatus) (wirejson.Status[v10Message], error) {
	out := wirejson.Status[v10Message]{State: wire.StateToV10(s.State), Timestamp: wirejson.FormatTime(s.Timestamp)}
	if s.Message != nil {
		m, err := encodeMessage10(s.Message)
		if err != nil {
			return out, err
		}
		out.Message = &m
	}
	return out, nil
}

func encodeArtifact10(a *wire.Artifact) (v10Artifact, error) {
	parts, err := encodeParts10(a.Parts)
	if err != nil {
		return v10Artifact{}, err
	}
	return v10Artifact{
		ArtifactID:  a.ArtifactID,
		Name:        a.Name,
		Description: a.Description,
		Parts:       parts,
		Metadata:    a.Metadata,
		Extensions:  a.Extensions,
	}, nil
}

func encodeTask10(t *wire.Task) (v10Task, error) {
	status, err := encodeStatus10(&t.Status)
	if err != nil {
		return v10Task{}, err
	}
	out := v10Task{ID: t.ID, ContextID: t.ContextID, Status: status, Metadata: t.Metadata}
	if len(t.History) > 0 {
		out.History = make([]v10Message, len(t.History))
		for i := range t.History {
			if out.History[i], err = encodeMessage10(&t.History[i]); err != nil {
				return out, err
			}
		}
	}
	if len(t.Artifacts) > 0 {
		out.Artifacts = make([]v10Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			if out.Artifacts[i], err = encodeArtifact10(&t.Artifacts[i]); err != nil {
				return out, err
			}
		}
	}
	return out, nil
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

// EncodeResult implements Codec. A push-config delete renders as JSON null,
// which is what the SDKs send as the JSON-RPC result of a
// google.protobuf.Empty; a REST binding may prefer to answer `{}`.
func (v10Codec) EncodeResult(op wire.Op, res *wire.Result) ([]byte, error) {
	if res == nil {
		return nil, fmt.Errorf("a2a: v1.0: no result for %s", op)
	}
	switch op {
	case wire.OpSend:
		var w v10StreamResponse
		switch {
		case res.Task != nil && res.Message != nil:
			return nil, errors.New("a2a: v1.0: send result has both a task and a message")
		case res.Task != nil:
			t, err := encodeTask10(res.Task)
			if err != nil {
				return nil, err
			}
			w.Task = &t
		case res.Message != nil:
			m, err := encodeMessage10(res.Message)
			if err != nil {
				return nil, err
			}
			w.Message = &m
		default:
			return nil, errors.New("a2a: v1.0: send result has neither a task nor a message")
		}
		return json.Marshal(&w)
	case wire.OpGetTask, wire.OpCancelTask:
		if res.Task == nil {
			return nil, fmt.Errorf("a2a: v1.0: %s result has no task", op)
		}
		t, err := encodeTask10(res.Task)
		if err != nil {
			return nil, err
		}
		return json.Marshal(&t)
	case wire.OpListTasks:
		if res.Page == nil {
			return nil, errors.New("a2a: v1.0: list-tasks result has no page")
		}
		out := v10ListTasks{
			Tasks:         make([]v10Task, 0, len(res.Page.Tasks)),
			NextPageToken: res.Page.NextPageToken,
			PageSize:      res.Page.PageSize,
			TotalSize:     res.Page.TotalSize,
		}
		for _, t := range res.Page.Tasks {
			if t == nil {
				continue
			}
			w, err := encodeTask10(t)
			if err != nil {
				return nil, err
			}
			out.Tasks = append(out.Tasks, w)
		}
		return json.Marshal(&out)
	case wire.OpSetPushConfig, wire.OpGetPushConfig:
		if res.PushConfig == nil {
			return nil, fmt.Errorf("a2a: v1.0: %s result has no push config", op)
		}
		w := encodePush10(res.PushConfig)
		return json.Marshal(&w)
	case wire.OpListPushConfigs:
		out := v10ListPush{Configs: make([]v10PushConfig, len(res.PushConfigs))}
		for i := range res.PushConfigs {
			out.Configs[i] = encodePush10(&res.PushConfigs[i])
		}
		return json.Marshal(&out)
	case wire.OpDeletePush:
		return []byte("null"), nil
	case wire.OpExtendedCard:
		if len(res.Card) == 0 {
			return nil, errors.New("a2a: v1.0: extended-card result has no card")
		}
		return res.Card, nil
	}
	return nil, fmt.Errorf("a2a: v1.0: %s has no unary result", op)
}

// EncodeEvent implements Codec: a StreamResponse wrapper with exactly one of
// task, message, statusUpdate, artifactUpdate.
func (v10Codec) EncodeEvent(ev wire.Event) ([]byte, error) {
	n := 0
	for _, set := range []bool{ev.Task != nil, ev.Message != nil, ev.Status != nil, ev.Artifact != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("a2a: v1.0: an event needs exactly one member, it has %d", n)
	}
	var w v10StreamResponse
	switch {
	case ev.Task != nil:
		t, err := encodeTask10(ev.Task)
		if err != nil {
			return nil, err
		}
		w.Task = &t
	case ev.Message != nil:
		m, err := encodeMessage10(ev.Message)
		if err != nil {
			return nil, err
		}
		w.Message = &m
	case ev.Status != nil:
		s, err := encodeStatus10(&ev.Status.Status)
		if err != nil {
			return nil, err
		}
		// Final is deliberately dropped: v1.0 ends a stream by closing it.
		w.StatusUpdate = &v10StatusUpdate{TaskID: ev.Status.TaskID, ContextID: ev.Status.ContextID,
			Status: s, Metadata: ev.Status.Metadata}
	case ev.Artifact != nil:
		a, err := encodeArtifact10(&ev.Artifact.Artifact)
		if err != nil {
			return nil, err
		}
		w.ArtifactUpdate = &v10ArtifactUpdate{TaskID: ev.Artifact.TaskID, ContextID: ev.Artifact.ContextID,
			Artifact: a, Append: ev.Artifact.Append, LastChunk: ev.Artifact.LastChunk, Metadata: ev.Artifact.Metadata}
	}
	return json.Marshal(&w)
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

// EncodeRESTError renders e as the v1.0 HTTP+JSON error (reach it as
// codecs.EncodeRESTError): the HTTP status and a google.rpc.Status body such as
// {"error":{"code":404,"status":"NOT_FOUND","message":"…","details":[ErrorInfo]}}.
func EncodeRESTError(e *wire.Error) (status int, body []byte) {
	if e == nil {
		e = wire.Errorf(wire.CodeInternal, "internal error")
	}
	status, name := e.Status()
	out := v10RESTError{Error: v10RPCStatus{Code: status, Status: name, Message: e.Message}}
	if info, ok := errorInfo10(e); ok {
		out.Error.Details = []v10ErrorInfo{info}
	}
	b, err := json.Marshal(&out)
	if err != nil {
		return httpstatus.InternalServerError, []byte(`{"error":{"code":500,"status":"INTERNAL","message":"error could not be rendered"}}`)
	}
	return status, b
}
