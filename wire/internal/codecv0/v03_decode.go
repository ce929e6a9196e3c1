package codecv0

// The v0.x codecs' decoding half (wire → canonical), shared with v0.1;
// v03.go holds the v0.2/v0.3 wire types and encoding.

import (
	"encoding/json"
	"fmt"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// ---------------------------------------------------------------------------
// Wire → canonical: the v0.x decoding helpers v0.1 shares. Nested objects
// are read as json.RawMessage and decoded one level at a time so that every
// error can name its full path, array indexes included.

func decodeRole(s *string, path string) (wire.Role, *wire.Error) {
	if s == nil || *s == "" {
		return "", wire.ErrInvalidParams(path, "is required")
	}
	switch wire.Role(*s) {
	case wire.RoleUser, wire.RoleAgent:
		return wire.Role(*s), nil
	}
	return "", wire.ErrInvalidParams(path, fmt.Sprintf(`must be "user" or "agent", not %q`, *s))
}

// wirePartIn reads a part of any v0.x dialect; the caller picks which
// discriminator (Kind or Type) counts.
type wirePartIn struct {
	Kind     *string         `json:"kind"`
	Type     *string         `json:"type"`
	Text     *string         `json:"text"`
	File     json.RawMessage `json:"file"`
	Data     json.RawMessage `json:"data"`
	Metadata map[string]any  `json:"metadata"`
}

type wireFileIn struct {
	Bytes    *string `json:"bytes"`
	URI      *string `json:"uri"`
	MimeType string  `json:"mimeType"`
	Name     string  `json:"name"`
}

// decodePartsList decodes the parts array found at path; discriminator is
// "kind" (v0.2+) or "type" (v0.1).
func decodePartsList(raw []json.RawMessage, present bool, path, discriminator string) ([]wire.Part, *wire.Error) {
	if !present {
		return nil, wire.ErrInvalidParams(path, "is required")
	}
	if len(raw) == 0 {
		return nil, wire.ErrInvalidParams(path, "must not be empty")
	}
	parts := make([]wire.Part, 0, len(raw))
	for i, r := range raw {
		p, e := decodePart(r, wirejson.IndexPath(path, i), discriminator)
		if e != nil {
			return nil, e
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func decodePart(raw json.RawMessage, path, discriminator string) (wire.Part, *wire.Error) {
	var in wirePartIn
	if _, e := wirejson.DecodeObject(raw, path, true, &in); e != nil {
		return wire.Part{}, e
	}
	kind := in.Kind
	if discriminator == "type" {
		kind = in.Type
	}
	dpath := wirejson.JoinPath(path, discriminator)
	if kind == nil || *kind == "" {
		return wire.Part{}, wire.ErrInvalidParams(dpath, "is required")
	}
	p := wire.Part{Kind: wire.PartKind(*kind), Metadata: in.Metadata}
	switch p.Kind {
	case wire.PartText:
		if in.Text == nil {
			return wire.Part{}, wire.ErrInvalidParams(wirejson.JoinPath(path, "text"), "is required")
		}
		p.Text = *in.Text
	case wire.PartFile:
		fpath := wirejson.JoinPath(path, "file")
		var f wireFileIn
		if _, e := wirejson.DecodeObject(in.File, fpath, true, &f); e != nil {
			return wire.Part{}, e
		}
		if f.Bytes == nil && f.URI == nil {
			return wire.Part{}, wire.ErrInvalidParams(fpath, "must have bytes or uri")
		}
		if f.Bytes != nil {
			b, err := wirejson.DecodeBase64(*f.Bytes)
			if err != nil {
				return wire.Part{}, wire.ErrInvalidParams(wirejson.JoinPath(fpath, "bytes"), "is not valid base64")
			}
			if b == nil {
				b = []byte{}
			}
			p.Raw = b
		}
		if f.URI != nil {
			if *f.URI == "" {
				return wire.Part{}, wire.ErrInvalidParams(wirejson.JoinPath(fpath, "uri"), "must not be empty")
			}
			p.URL = *f.URI
		}
		p.MediaType, p.Filename = f.MimeType, f.Name
	case wire.PartData:
		var d map[string]any
		if _, e := wirejson.DecodeObject(in.Data, wirejson.JoinPath(path, "data"), true, &d); e != nil {
			return wire.Part{}, e
		}
		p.Data = d
	default:
		return wire.Part{}, wire.ErrInvalidParams(dpath, fmt.Sprintf(`must be "text", "file" or "data", not %q`, *kind))
	}
	return p, nil
}

type wireAuthIn struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials"`
}

// pushConfigFrom checks and keeps what the v0.x PushNotificationConfig at
// path has in every dialect: a required url, a token and authentication.
// v0.1 has no id, so the caller adds it where there is one.
func pushConfigFrom(url *string, token string, auth json.RawMessage, path string) (*wire.PushConfig, *wire.Error) {
	u, e := wirejson.RequireString(url, wirejson.JoinPath(path, "url"))
	if e != nil {
		return nil, e
	}
	pc := &wire.PushConfig{URL: u, Token: token}
	if e := decodeAuth(auth, wirejson.JoinPath(path, "authentication"), pc); e != nil {
		return nil, e
	}
	return pc, nil
}

// decodeAuth fills pc's authentication from the object at path.
func decodeAuth(raw json.RawMessage, path string, pc *wire.PushConfig) *wire.Error {
	var a wireAuthIn
	present, e := wirejson.DecodeObject(raw, path, false, &a)
	if e != nil || !present {
		return e
	}
	if a.Schemes == nil {
		return wire.ErrInvalidParams(wirejson.JoinPath(path, "schemes"), "is required")
	}
	pc.AuthSchemes, pc.AuthCredentials = a.Schemes, a.Credentials
	return nil
}

// ---------------------------------------------------------------------------
// v0.3 request params.

type wire03MessageIn struct {
	Kind             *string           `json:"kind"`
	MessageID        *string           `json:"messageId"`
	Role             *string           `json:"role"`
	Parts            []json.RawMessage `json:"parts"`
	ContextID        string            `json:"contextId"`
	TaskID           string            `json:"taskId"`
	ReferenceTaskIDs []string          `json:"referenceTaskIds"`
	Extensions       []string          `json:"extensions"`
	Metadata         map[string]any    `json:"metadata"`
}

// decodeMessage03 reads a Message. A missing `kind` is accepted (some
// clients leave it out); a wrong one is not.
func decodeMessage03(raw json.RawMessage, path string) (*wire.Message, *wire.Error) {
	var in wire03MessageIn
	if _, e := wirejson.DecodeObject(raw, path, true, &in); e != nil {
		return nil, e
	}
	if in.Kind != nil && *in.Kind != "message" {
		return nil, wire.ErrInvalidParams(wirejson.JoinPath(path, "kind"), fmt.Sprintf(`must be "message", not %q`, *in.Kind))
	}
	id, e := wirejson.RequireString(in.MessageID, wirejson.JoinPath(path, "messageId"))
	if e != nil {
		return nil, e
	}
	role, e := decodeRole(in.Role, wirejson.JoinPath(path, "role"))
	if e != nil {
		return nil, e
	}
	parts, e := decodePartsList(in.Parts, in.Parts != nil, wirejson.JoinPath(path, "parts"), "kind")
	if e != nil {
		return nil, e
	}
	return &wire.Message{
		MessageID:        id,
		ContextID:        in.ContextID,
		TaskID:           in.TaskID,
		Role:             role,
		Parts:            parts,
		Metadata:         in.Metadata,
		Extensions:       in.Extensions,
		ReferenceTaskIDs: in.ReferenceTaskIDs,
	}, nil
}

type wire03PushConfigIn struct {
	ID             string          `json:"id"`
	URL            *string         `json:"url"`
	Token          string          `json:"token"`
	Authentication json.RawMessage `json:"authentication"`
}

func decodePushConfig03(raw json.RawMessage, path string, required bool) (*wire.PushConfig, *wire.Error) {
	var in wire03PushConfigIn
	present, e := wirejson.DecodeObject(raw, path, required, &in)
	if e != nil || !present {
		return nil, e
	}
	pc, e := pushConfigFrom(in.URL, in.Token, in.Authentication, path)
	if e != nil {
		return nil, e
	}
	pc.ID = in.ID
	return pc, nil
}

type wire03SendParams struct {
	Message       json.RawMessage `json:"message"`
	Configuration json.RawMessage `json:"configuration"`
	Metadata      map[string]any  `json:"metadata"`
}

type wire03ConfigIn struct {
	AcceptedOutputModes    []string        `json:"acceptedOutputModes"`
	HistoryLength          *int            `json:"historyLength"`
	Blocking               *bool           `json:"blocking"`
	PushNotificationConfig json.RawMessage `json:"pushNotificationConfig"`
}

// wireTaskQueryIn reads TaskQueryParams and TaskIdParams, which every v0.x
// dialect spells alike.
type wireTaskQueryIn struct {
	ID            *string        `json:"id"`
	HistoryLength *int           `json:"historyLength"`
	Metadata      map[string]any `json:"metadata"`
}

// decodeTaskQuery reads v0.x TaskQueryParams (withHistory, whose
// historyLength is checked and kept) or TaskIdParams into req.
func decodeTaskQuery(params []byte, req *wire.Request, withHistory bool) *wire.Error {
	var in wireTaskQueryIn
	id, e := wirejson.DecodeWithID(params, &in, &in.ID, "id")
	if e != nil {
		return e
	}
	if withHistory {
		if e := wirejson.CheckHistoryLength(in.HistoryLength, "historyLength"); e != nil {
			return e
		}
		req.HistoryLength = in.HistoryLength
	}
	req.TaskID, req.Metadata = id, in.Metadata
	return nil
}

type wire03PushParamsIn struct {
	ID                       *string        `json:"id"`
	PushNotificationConfigID *string        `json:"pushNotificationConfigId"`
	Metadata                 map[string]any `json:"metadata"`
}

type wire03SetPushIn struct {
	TaskID                 *string         `json:"taskId"`
	PushNotificationConfig json.RawMessage `json:"pushNotificationConfig"`
}

// DecodeParams decodes MessageSendParams, TaskQueryParams, TaskIdParams and
// the push-config params. An absent `configuration.blocking` means blocking,
// as the SDKs read it. For send, the continuation task id stays in
// Message.TaskID; Request.TaskID is left empty because in v0.2/v0.3 the
// server, not the client, names tasks.
func (c *v03Codec) DecodeParams(op wire.Op, params []byte) (*wire.Request, *wire.Error) {
	req := &wire.Request{Op: op, Dialect: c.dialect}
	switch op {
	case wire.OpSend, wire.OpStream:
		var in wire03SendParams
		if _, e := wirejson.DecodeObject(params, "", true, &in); e != nil {
			return nil, e
		}
		msg, e := decodeMessage03(in.Message, "message")
		if e != nil {
			return nil, e
		}
		req.Message, req.Metadata, req.Ignored = msg, in.Metadata, ignored03(params)
		var cfg wire03ConfigIn
		present, e := wirejson.DecodeObject(in.Configuration, "configuration", false, &cfg)
		if e != nil {
			return nil, e
		}
		if present {
			if e := wirejson.CheckHistoryLength(cfg.HistoryLength, "configuration.historyLength"); e != nil {
				return nil, e
			}
			pc, e := decodePushConfig03(cfg.PushNotificationConfig, "configuration.pushNotificationConfig", false)
			if e != nil {
				return nil, e
			}
			req.Config = wire.SendConfig{
				AcceptedOutputModes: cfg.AcceptedOutputModes,
				HistoryLength:       cfg.HistoryLength,
				ReturnImmediately:   cfg.Blocking != nil && !*cfg.Blocking,
				PushConfig:          pc,
			}
		}
	case wire.OpGetTask:
		if e := decodeTaskQuery(params, req, true); e != nil {
			return nil, e
		}
	case wire.OpCancelTask, wire.OpSubscribe, wire.OpListPushConfigs:
		if e := decodeTaskQuery(params, req, false); e != nil {
			return nil, e
		}
	case wire.OpGetPushConfig, wire.OpDeletePush:
		var in wire03PushParamsIn
		id, e := wirejson.DecodeWithID(params, &in, &in.ID, "id")
		if e != nil {
			return nil, e
		}
		req.TaskID, req.Metadata = id, in.Metadata
		if op == wire.OpDeletePush {
			cid, e := wirejson.RequireString(in.PushNotificationConfigID, "pushNotificationConfigId")
			if e != nil {
				return nil, e
			}
			req.PushConfigID = cid
		} else if in.PushNotificationConfigID != nil {
			req.PushConfigID = *in.PushNotificationConfigID
		}
	case wire.OpSetPushConfig:
		var in wire03SetPushIn
		id, e := wirejson.DecodeWithID(params, &in, &in.TaskID, "taskId")
		if e != nil {
			return nil, e
		}
		pc, e := decodePushConfig03(in.PushNotificationConfig, "pushNotificationConfig", true)
		if e != nil {
			return nil, e
		}
		pc.TaskID = id
		req.TaskID, req.PushConfig, req.PushConfigID = id, pc, pc.ID
	case wire.OpExtendedCard:
		// No params; anything sent is ignored, as long as it is an object.
		if !wirejson.IsAbsent(params) {
			var ignored struct{}
			if _, e := wirejson.DecodeObject(params, "", false, &ignored); e != nil {
				return nil, e
			}
		}
	default:
		return nil, wire.Errorf(wire.CodeMethodNotFound, "operation %s does not exist in A2A v%s", op, c.dialect)
	}
	if op != wire.OpSend && op != wire.OpStream {
		req.Ignored = ignoredParams03(op, params)
	}
	return req, nil
}

// ---------------------------------------------------------------------------
// v0.3 wire → canonical for server output: the inverse of EncodeEvent, for
// clients and tests. Reach it with an interface assertion on codecs.For(wire.V03).

type wire03ArtifactIn struct {
	ArtifactID  string            `json:"artifactId"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Parts       []json.RawMessage `json:"parts"`
	Extensions  []string          `json:"extensions"`
	Metadata    map[string]any    `json:"metadata"`
}

type wire03EventIn struct {
	Kind      string            `json:"kind"`
	ID        string            `json:"id"`
	TaskID    string            `json:"taskId"`
	ContextID string            `json:"contextId"`
	Status    json.RawMessage   `json:"status"`
	History   []json.RawMessage `json:"history"`
	Artifacts []json.RawMessage `json:"artifacts"`
	Artifact  json.RawMessage   `json:"artifact"`
	Final     bool              `json:"final"`
	Append    bool              `json:"append"`
	LastChunk bool              `json:"lastChunk"`
	Metadata  map[string]any    `json:"metadata"`
}

// wireStatusIn reads a TaskStatus of any v0.x dialect: they share its
// members and differ only in the states and messages inside.
type wireStatusIn struct {
	State     string          `json:"state"`
	Message   json.RawMessage `json:"message"`
	Timestamp string          `json:"timestamp"`
}

// decodeStatus reads the v0.x TaskStatus at path. known says which states
// the dialect has, and decodeMessage reads its messages.
func decodeStatus(raw json.RawMessage, path string, known func(wire.TaskState) bool,
	decodeMessage func(json.RawMessage, string) (*wire.Message, *wire.Error)) (wire.TaskStatus, *wire.Error) {
	var in wireStatusIn
	if _, e := wirejson.DecodeObject(raw, path, true, &in); e != nil {
		return wire.TaskStatus{}, e
	}
	st := wire.TaskStatus{State: wire.TaskState(in.State)}
	if !known(st.State) {
		return wire.TaskStatus{}, wire.ErrInvalidParams(wirejson.JoinPath(path, "state"), fmt.Sprintf("unknown state %q", in.State))
	}
	if in.Timestamp != "" {
		ts, err := wirejson.ParseTime(in.Timestamp)
		if err != nil {
			return wire.TaskStatus{}, wire.ErrInvalidParams(wirejson.JoinPath(path, "timestamp"), "is not an ISO 8601 date-time")
		}
		st.Timestamp = ts
	}
	if !wirejson.IsAbsent(in.Message) {
		m, e := decodeMessage(in.Message, wirejson.JoinPath(path, "message"))
		if e != nil {
			return wire.TaskStatus{}, e
		}
		st.Message = m
	}
	return st, nil
}

func decodeArtifact03(raw json.RawMessage, path string) (wire.Artifact, *wire.Error) {
	var in wire03ArtifactIn
	if _, e := wirejson.DecodeObject(raw, path, true, &in); e != nil {
		return wire.Artifact{}, e
	}
	parts, e := decodePartsList(in.Parts, in.Parts != nil, wirejson.JoinPath(path, "parts"), "kind")
	if e != nil {
		return wire.Artifact{}, e
	}
	return wire.Artifact{ArtifactID: in.ArtifactID, Name: in.Name, Description: in.Description,
		Parts: parts, Extensions: in.Extensions, Metadata: in.Metadata}, nil
}

// DecodeEvent reads a Task, Message, status-update or artifact-update object
// by its `kind`. Errors use the InvalidParams code and name the bad field.
func (c *v03Codec) DecodeEvent(data []byte) (wire.Event, error) {
	var in wire03EventIn
	if _, e := wirejson.DecodeObject(data, "", true, &in); e != nil {
		return wire.Event{}, e
	}
	switch in.Kind {
	case "task":
		st, e := decodeStatus(in.Status, "status", wire.TaskState.Valid, decodeMessage03)
		if e != nil {
			return wire.Event{}, e
		}
		t := &wire.Task{ID: in.ID, ContextID: in.ContextID, Status: st, Metadata: in.Metadata}
		for i, h := range in.History {
			m, e := decodeMessage03(h, wirejson.IndexPath("history", i))
			if e != nil {
				return wire.Event{}, e
			}
			t.History = append(t.History, *m)
		}
		for i, a := range in.Artifacts {
			art, e := decodeArtifact03(a, wirejson.IndexPath("artifacts", i))
			if e != nil {
				return wire.Event{}, e
			}
			t.Artifacts = append(t.Artifacts, art)
		}
		return wire.Event{Task: t}, nil
	case "message":
		m, e := decodeMessage03(data, "")
		if e != nil {
			return wire.Event{}, e
		}
		return wire.Event{Message: m}, nil
	case "status-update":
		st, e := decodeStatus(in.Status, "status", wire.TaskState.Valid, decodeMessage03)
		if e != nil {
			return wire.Event{}, e
		}
		return wire.Event{Status: &wire.StatusUpdate{TaskID: in.TaskID, ContextID: in.ContextID, Status: st,
			Final: in.Final, Metadata: in.Metadata}}, nil
	case "artifact-update":
		a, e := decodeArtifact03(in.Artifact, "artifact")
		if e != nil {
			return wire.Event{}, e
		}
		return wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: in.TaskID, ContextID: in.ContextID, Artifact: a,
			Append: in.Append, LastChunk: in.LastChunk, Metadata: in.Metadata}}, nil
	}
	return wire.Event{}, wire.ErrInvalidParams("kind", fmt.Sprintf("unknown kind %q", in.Kind))
}
