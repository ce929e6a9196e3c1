package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

func init() {
	register(&v03Codec{dialect: V03, methods: v03Methods})
	register(&v03Codec{dialect: V02, methods: v02Methods})
}

// v03Codec speaks the `message/send` era JSON-RPC dialect: v0.3.0, and with
// dialect V02 also v0.2.x. Tasks, messages, parts, events and push configs
// have the same shape in the v0.2.6 and v0.3.0 schemas (checked definition by
// definition); v0.2 only lacks agent/getAuthenticatedExtendedCard, which was
// a plain HTTP GET then. The codec still encodes an extended-card result for
// V02 because the server may serve that GET with it.
type v03Codec struct {
	dialect Dialect
	methods map[string]Op
}

// The maps are shared; Methods hands them out on the understanding that
// callers only read them (LookupMethod calls Methods on every request).
var v03Methods = map[string]Op{
	"message/send":                        OpSend,
	"message/stream":                      OpStream,
	"tasks/get":                           OpGetTask,
	"tasks/cancel":                        OpCancelTask,
	"tasks/resubscribe":                   OpSubscribe,
	"tasks/pushNotificationConfig/set":    OpSetPushConfig,
	"tasks/pushNotificationConfig/get":    OpGetPushConfig,
	"tasks/pushNotificationConfig/list":   OpListPushConfigs,
	"tasks/pushNotificationConfig/delete": OpDeletePush,
	"agent/getAuthenticatedExtendedCard":  OpExtendedCard,
}

var v02Methods = map[string]Op{
	"message/send":                        OpSend,
	"message/stream":                      OpStream,
	"tasks/get":                           OpGetTask,
	"tasks/cancel":                        OpCancelTask,
	"tasks/resubscribe":                   OpSubscribe,
	"tasks/pushNotificationConfig/set":    OpSetPushConfig,
	"tasks/pushNotificationConfig/get":    OpGetPushConfig,
	"tasks/pushNotificationConfig/list":   OpListPushConfigs,
	"tasks/pushNotificationConfig/delete": OpDeletePush,
}

func (c *v03Codec) Dialect() Dialect { return c.dialect }

// Methods returns a shared map that callers must not modify.
func (c *v03Codec) Methods() map[string]Op { return c.methods }

// ---------------------------------------------------------------------------
// Wire types (v0.2.6 / v0.3.0). Field order is the order keys are written.

type wireFile struct {
	Bytes    *string `json:"bytes,omitempty"`
	URI      *string `json:"uri,omitempty"`
	MimeType string  `json:"mimeType,omitempty"`
	Name     string  `json:"name,omitempty"`
}

// partBody is what the text/file/data parts of every v0.x dialect share;
// only the discriminator key differs (v0.1 `type`, v0.2+ `kind`).
type partBody struct {
	Text     *string         `json:"text,omitempty"`
	File     *wireFile       `json:"file,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

type wire03Part struct {
	Kind string `json:"kind"`
	partBody
}

type wire03Message struct {
	Kind             string         `json:"kind"`
	MessageID        string         `json:"messageId"`
	Role             string         `json:"role"`
	Parts            []wire03Part   `json:"parts"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

type wire03Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []wire03Part   `json:"parts"`
	Extensions  []string       `json:"extensions,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type wire03Task struct {
	Kind      string                    `json:"kind"`
	ID        string                    `json:"id"`
	ContextID string                    `json:"contextId"`
	Status    wireStatus[wire03Message] `json:"status"`
	History   []wire03Message           `json:"history,omitempty"`
	Artifacts []wire03Artifact          `json:"artifacts,omitempty"`
	Metadata  map[string]any            `json:"metadata,omitempty"`
}

type wire03StatusUpdate struct {
	Kind      string                    `json:"kind"`
	TaskID    string                    `json:"taskId"`
	ContextID string                    `json:"contextId"`
	Status    wireStatus[wire03Message] `json:"status"`
	Final     bool                      `json:"final"`
	Metadata  map[string]any            `json:"metadata,omitempty"`
}

type wire03ArtifactUpdate struct {
	Kind      string         `json:"kind"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  wire03Artifact `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wireAuth struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

type wire03PushConfig struct {
	ID             string    `json:"id,omitempty"`
	URL            string    `json:"url"`
	Token          string    `json:"token,omitempty"`
	Authentication *wireAuth `json:"authentication,omitempty"`
}

type wire03TaskPushConfig struct {
	TaskID                 string           `json:"taskId"`
	PushNotificationConfig wire03PushConfig `json:"pushNotificationConfig"`
}

// ---------------------------------------------------------------------------
// Canonical → wire.

// stateV03 writes a state; the unset state has no v0.x spelling, and
// "unknown" is the closest one the schema allows.
func stateV03(s TaskState) string {
	if !s.Valid() {
		return string(StateUnknown)
	}
	return string(s)
}

// dataJSON renders a data part's payload. The v0.x schemas require an
// object, but canonical data may be any JSON value (v1.0 allows that), so a
// non-object is wrapped as {"value": …} rather than emitted invalid.
func dataJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage(`{}`), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("data part: %w", err)
	}
	switch {
	case bytes.Equal(b, []byte("null")):
		return json.RawMessage(`{}`), nil
	case b[0] == '{':
		return b, nil
	}
	return json.Marshal(struct {
		Value json.RawMessage `json:"value"`
	}{b})
}

func encodePartBody(p Part) (partBody, error) {
	body := partBody{Metadata: p.Metadata}
	switch p.Kind {
	case PartText:
		text := p.Text
		body.Text = &text
	case PartFile:
		f := &wireFile{MimeType: p.MediaType, Name: p.Filename}
		if p.URL != "" {
			u := p.URL
			f.URI = &u
		}
		// A file with neither bytes nor a uri gets empty bytes, so that it
		// is still a valid FileWithBytes.
		if p.Raw != nil || p.URL == "" {
			s := base64.StdEncoding.EncodeToString(p.Raw)
			f.Bytes = &s
		}
		body.File = f
	case PartData:
		d, err := dataJSON(p.Data)
		if err != nil {
			return body, err
		}
		body.Data = d
	default:
		return body, fmt.Errorf("part has unknown kind %q", p.Kind)
	}
	return body, nil
}

// encodeParts renders parts for a v0.x dialect. wire01Part and wire03Part
// differ only in the JSON key of their discriminator, so either converts
// from the other.
func encodeParts[P wire01Part | wire03Part](parts []Part) ([]P, error) {
	out := make([]P, 0, len(parts))
	for i, p := range parts {
		body, err := encodePartBody(p)
		if err != nil {
			return nil, fmt.Errorf("parts[%d]: %w", i, err)
		}
		out = append(out, P(wire03Part{Kind: string(p.Kind), partBody: body}))
	}
	return out, nil
}

func encodeMessage03(m *Message) (*wire03Message, error) {
	parts, err := encodeParts[wire03Part](m.Parts)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	return &wire03Message{
		Kind:             "message",
		MessageID:        m.MessageID,
		Role:             string(m.Role),
		Parts:            parts,
		ContextID:        m.ContextID,
		TaskID:           m.TaskID,
		ReferenceTaskIDs: m.ReferenceTaskIDs,
		Extensions:       m.Extensions,
		Metadata:         m.Metadata,
	}, nil
}

// encodeStatus renders a v0.x TaskStatus with the dialect's state spelling
// and message encoder.
func encodeStatus[M any](s TaskStatus, state func(TaskState) string,
	encodeMessage func(*Message) (*M, error)) (wireStatus[M], error) {
	out := wireStatus[M]{State: state(s.State), Timestamp: formatTime(s.Timestamp)}
	if s.Message != nil {
		m, err := encodeMessage(s.Message)
		if err != nil {
			return out, fmt.Errorf("status: %w", err)
		}
		out.Message = m
	}
	return out, nil
}

func encodeArtifact03(a Artifact) (wire03Artifact, error) {
	parts, err := encodeParts[wire03Part](a.Parts)
	if err != nil {
		return wire03Artifact{}, fmt.Errorf("artifact %q: %w", a.ArtifactID, err)
	}
	return wire03Artifact{
		ArtifactID:  a.ArtifactID,
		Name:        a.Name,
		Description: a.Description,
		Parts:       parts,
		Extensions:  a.Extensions,
		Metadata:    a.Metadata,
	}, nil
}

func encodeTask03(t *Task) (*wire03Task, error) {
	st, err := encodeStatus(t.Status, stateV03, encodeMessage03)
	if err != nil {
		return nil, err
	}
	out := &wire03Task{Kind: "task", ID: t.ID, ContextID: t.ContextID, Status: st, Metadata: t.Metadata}
	for i := range t.History {
		m, err := encodeMessage03(&t.History[i])
		if err != nil {
			return nil, fmt.Errorf("history[%d]: %w", i, err)
		}
		out.History = append(out.History, *m)
	}
	for _, a := range t.Artifacts {
		wa, err := encodeArtifact03(a)
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, wa)
	}
	return out, nil
}

func encodeAuth(pc *PushConfig) *wireAuth {
	if len(pc.AuthSchemes) == 0 && pc.AuthCredentials == "" {
		return nil
	}
	// schemes is required whenever authentication is present.
	schemes := pc.AuthSchemes
	if schemes == nil {
		schemes = []string{}
	}
	return &wireAuth{Schemes: schemes, Credentials: pc.AuthCredentials}
}

func encodePush03(pc *PushConfig) wire03TaskPushConfig {
	return wire03TaskPushConfig{
		TaskID: pc.TaskID,
		PushNotificationConfig: wire03PushConfig{
			ID:             pc.ID,
			URL:            pc.URL,
			Token:          pc.Token,
			Authentication: encodeAuth(pc),
		},
	}
}

// EncodeResult renders a unary result. OpListTasks does not exist before
// v1.0 and OpStream/OpSubscribe are not unary, so they are errors.
func (c *v03Codec) EncodeResult(op Op, res *Result) ([]byte, error) {
	if res == nil {
		return nil, fmt.Errorf("a2a v%s: %s: nil result", c.dialect, op)
	}
	switch op {
	case OpSend:
		switch {
		case res.Task != nil:
			return c.marshalTask(res.Task)
		case res.Message != nil:
			return c.marshalMessage(res.Message)
		}
		return nil, fmt.Errorf("a2a v%s: send result has neither a task nor a message", c.dialect)
	case OpGetTask, OpCancelTask:
		if res.Task == nil {
			return nil, fmt.Errorf("a2a v%s: %s result has no task", c.dialect, op)
		}
		return c.marshalTask(res.Task)
	case OpSetPushConfig, OpGetPushConfig:
		if res.PushConfig == nil {
			return nil, fmt.Errorf("a2a v%s: %s result has no push config", c.dialect, op)
		}
		return json.Marshal(encodePush03(res.PushConfig))
	case OpListPushConfigs:
		out := make([]wire03TaskPushConfig, 0, len(res.PushConfigs))
		for i := range res.PushConfigs {
			out = append(out, encodePush03(&res.PushConfigs[i]))
		}
		return json.Marshal(out)
	case OpDeletePush:
		return []byte("null"), nil
	case OpExtendedCard:
		if len(res.Card) == 0 {
			return nil, fmt.Errorf("a2a v%s: extended card result has no card", c.dialect)
		}
		return res.Card, nil
	}
	return nil, fmt.Errorf("a2a v%s: operation %s has no unary result in this dialect", c.dialect, op)
}

func (c *v03Codec) marshalTask(t *Task) ([]byte, error) {
	w, err := encodeTask03(t)
	if err != nil {
		return nil, fmt.Errorf("a2a v%s: task %s: %w", c.dialect, t.ID, err)
	}
	return json.Marshal(w)
}

func (c *v03Codec) marshalMessage(m *Message) ([]byte, error) {
	w, err := encodeMessage03(m)
	if err != nil {
		return nil, fmt.Errorf("a2a v%s: %w", c.dialect, err)
	}
	return json.Marshal(w)
}

// EncodeEvent renders the bare object with its `kind`. A status update's
// `final` is taken from StatusUpdate.Final as given: deciding when a stream
// ends is the server's business, and a mock may want to get it wrong.
func (c *v03Codec) EncodeEvent(ev Event) ([]byte, error) {
	switch {
	case ev.Task != nil:
		return c.marshalTask(ev.Task)
	case ev.Message != nil:
		return c.marshalMessage(ev.Message)
	case ev.Status != nil:
		st, err := encodeStatus(ev.Status.Status, stateV03, encodeMessage03)
		if err != nil {
			return nil, fmt.Errorf("a2a v%s: status-update: %w", c.dialect, err)
		}
		return json.Marshal(wire03StatusUpdate{
			Kind:      "status-update",
			TaskID:    ev.Status.TaskID,
			ContextID: ev.Status.ContextID,
			Status:    st,
			Final:     ev.Status.Final,
			Metadata:  ev.Status.Metadata,
		})
	case ev.Artifact != nil:
		a, err := encodeArtifact03(ev.Artifact.Artifact)
		if err != nil {
			return nil, fmt.Errorf("a2a v%s: artifact-update: %w", c.dialect, err)
		}
		return json.Marshal(wire03ArtifactUpdate{
			Kind:      "artifact-update",
			TaskID:    ev.Artifact.TaskID,
			ContextID: ev.Artifact.ContextID,
			Artifact:  a,
			Append:    ev.Artifact.Append,
			LastChunk: ev.Artifact.LastChunk,
			Metadata:  ev.Artifact.Metadata,
		})
	}
	return nil, fmt.Errorf("a2a v%s: empty event", c.dialect)
}

// EncodePush renders a webhook body. v0.2/v0.3 do not fix the body; the docs
// and the SDKs POST the Task object, so a Task event becomes that. A status
// or artifact update carries too little to build a Task from (no history,
// no other artifacts), so it is sent as the event object itself, `kind` and
// all, which is what a receiver that parses stream results will understand.
// A Message event is sent as the message object.
func (c *v03Codec) EncodePush(ev Event) ([]byte, error) { return c.EncodeEvent(ev) }

// EncodeErrorData renders e.Data as the error's data object, for example
// {"taskId":"t1"}; v0.x lets data be anything.
func (c *v03Codec) EncodeErrorData(e *Error) []byte { return encodeErrorData(e) }

// ---------------------------------------------------------------------------
// Wire → canonical: the v0.x decoding helpers v0.1 shares. Nested objects
// are read as json.RawMessage and decoded one level at a time so that every
// error can name its full path, array indexes included.

func decodeRole(s *string, path string) (Role, *Error) {
	if s == nil || *s == "" {
		return "", ErrInvalidParams(path, "is required")
	}
	switch Role(*s) {
	case RoleUser, RoleAgent:
		return Role(*s), nil
	}
	return "", ErrInvalidParams(path, fmt.Sprintf(`must be "user" or "agent", not %q`, *s))
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
func decodePartsList(raw []json.RawMessage, present bool, path, discriminator string) ([]Part, *Error) {
	if !present {
		return nil, ErrInvalidParams(path, "is required")
	}
	if len(raw) == 0 {
		return nil, ErrInvalidParams(path, "must not be empty")
	}
	parts := make([]Part, 0, len(raw))
	for i, r := range raw {
		p, e := decodePart(r, indexPath(path, i), discriminator)
		if e != nil {
			return nil, e
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func decodePart(raw json.RawMessage, path, discriminator string) (Part, *Error) {
	var in wirePartIn
	if _, e := decodeObject(raw, path, true, &in); e != nil {
		return Part{}, e
	}
	kind := in.Kind
	if discriminator == "type" {
		kind = in.Type
	}
	dpath := joinPath(path, discriminator)
	if kind == nil || *kind == "" {
		return Part{}, ErrInvalidParams(dpath, "is required")
	}
	p := Part{Kind: PartKind(*kind), Metadata: in.Metadata}
	switch p.Kind {
	case PartText:
		if in.Text == nil {
			return Part{}, ErrInvalidParams(joinPath(path, "text"), "is required")
		}
		p.Text = *in.Text
	case PartFile:
		fpath := joinPath(path, "file")
		var f wireFileIn
		if _, e := decodeObject(in.File, fpath, true, &f); e != nil {
			return Part{}, e
		}
		if f.Bytes == nil && f.URI == nil {
			return Part{}, ErrInvalidParams(fpath, "must have bytes or uri")
		}
		if f.Bytes != nil {
			b, err := decodeBase64(*f.Bytes)
			if err != nil {
				return Part{}, ErrInvalidParams(joinPath(fpath, "bytes"), "is not valid base64")
			}
			if b == nil {
				b = []byte{}
			}
			p.Raw = b
		}
		if f.URI != nil {
			if *f.URI == "" {
				return Part{}, ErrInvalidParams(joinPath(fpath, "uri"), "must not be empty")
			}
			p.URL = *f.URI
		}
		p.MediaType, p.Filename = f.MimeType, f.Name
	case PartData:
		var d map[string]any
		if _, e := decodeObject(in.Data, joinPath(path, "data"), true, &d); e != nil {
			return Part{}, e
		}
		p.Data = d
	default:
		return Part{}, ErrInvalidParams(dpath, fmt.Sprintf(`must be "text", "file" or "data", not %q`, *kind))
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
func pushConfigFrom(url *string, token string, auth json.RawMessage, path string) (*PushConfig, *Error) {
	u, e := requireString(url, joinPath(path, "url"))
	if e != nil {
		return nil, e
	}
	pc := &PushConfig{URL: u, Token: token}
	if e := decodeAuth(auth, joinPath(path, "authentication"), pc); e != nil {
		return nil, e
	}
	return pc, nil
}

// decodeAuth fills pc's authentication from the object at path.
func decodeAuth(raw json.RawMessage, path string, pc *PushConfig) *Error {
	var a wireAuthIn
	present, e := decodeObject(raw, path, false, &a)
	if e != nil || !present {
		return e
	}
	if a.Schemes == nil {
		return ErrInvalidParams(joinPath(path, "schemes"), "is required")
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
func decodeMessage03(raw json.RawMessage, path string) (*Message, *Error) {
	var in wire03MessageIn
	if _, e := decodeObject(raw, path, true, &in); e != nil {
		return nil, e
	}
	if in.Kind != nil && *in.Kind != "message" {
		return nil, ErrInvalidParams(joinPath(path, "kind"), fmt.Sprintf(`must be "message", not %q`, *in.Kind))
	}
	id, e := requireString(in.MessageID, joinPath(path, "messageId"))
	if e != nil {
		return nil, e
	}
	role, e := decodeRole(in.Role, joinPath(path, "role"))
	if e != nil {
		return nil, e
	}
	parts, e := decodePartsList(in.Parts, in.Parts != nil, joinPath(path, "parts"), "kind")
	if e != nil {
		return nil, e
	}
	return &Message{
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

func decodePushConfig03(raw json.RawMessage, path string, required bool) (*PushConfig, *Error) {
	var in wire03PushConfigIn
	present, e := decodeObject(raw, path, required, &in)
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
func decodeTaskQuery(params []byte, req *Request, withHistory bool) *Error {
	var in wireTaskQueryIn
	id, e := decodeWithID(params, &in, &in.ID, "id")
	if e != nil {
		return e
	}
	if withHistory {
		if e := checkHistoryLength(in.HistoryLength, "historyLength"); e != nil {
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
func (c *v03Codec) DecodeParams(op Op, params []byte) (*Request, *Error) {
	req := &Request{Op: op, Dialect: c.dialect}
	switch op {
	case OpSend, OpStream:
		var in wire03SendParams
		if _, e := decodeObject(params, "", true, &in); e != nil {
			return nil, e
		}
		msg, e := decodeMessage03(in.Message, "message")
		if e != nil {
			return nil, e
		}
		req.Message, req.Metadata = msg, in.Metadata
		var cfg wire03ConfigIn
		present, e := decodeObject(in.Configuration, "configuration", false, &cfg)
		if e != nil {
			return nil, e
		}
		if present {
			if e := checkHistoryLength(cfg.HistoryLength, "configuration.historyLength"); e != nil {
				return nil, e
			}
			pc, e := decodePushConfig03(cfg.PushNotificationConfig, "configuration.pushNotificationConfig", false)
			if e != nil {
				return nil, e
			}
			req.Config = SendConfig{
				AcceptedOutputModes: cfg.AcceptedOutputModes,
				HistoryLength:       cfg.HistoryLength,
				ReturnImmediately:   cfg.Blocking != nil && !*cfg.Blocking,
				PushConfig:          pc,
			}
		}
	case OpGetTask:
		if e := decodeTaskQuery(params, req, true); e != nil {
			return nil, e
		}
	case OpCancelTask, OpSubscribe, OpListPushConfigs:
		if e := decodeTaskQuery(params, req, false); e != nil {
			return nil, e
		}
	case OpGetPushConfig, OpDeletePush:
		var in wire03PushParamsIn
		id, e := decodeWithID(params, &in, &in.ID, "id")
		if e != nil {
			return nil, e
		}
		req.TaskID, req.Metadata = id, in.Metadata
		if op == OpDeletePush {
			cid, e := requireString(in.PushNotificationConfigID, "pushNotificationConfigId")
			if e != nil {
				return nil, e
			}
			req.PushConfigID = cid
		} else if in.PushNotificationConfigID != nil {
			req.PushConfigID = *in.PushNotificationConfigID
		}
	case OpSetPushConfig:
		var in wire03SetPushIn
		id, e := decodeWithID(params, &in, &in.TaskID, "taskId")
		if e != nil {
			return nil, e
		}
		pc, e := decodePushConfig03(in.PushNotificationConfig, "pushNotificationConfig", true)
		if e != nil {
			return nil, e
		}
		pc.TaskID = id
		req.TaskID, req.PushConfig, req.PushConfigID = id, pc, pc.ID
	case OpExtendedCard:
		// No params; anything sent is ignored, as long as it is an object.
		if !isAbsent(params) {
			var ignored struct{}
			if _, e := decodeObject(params, "", false, &ignored); e != nil {
				return nil, e
			}
		}
	default:
		return nil, Errorf(CodeMethodNotFound, "operation %s does not exist in A2A v%s", op, c.dialect)
	}
	return req, nil
}

// ---------------------------------------------------------------------------
// v0.3 wire → canonical for server output: the inverse of EncodeEvent, for
// clients and tests. Reach it with an interface assertion on CodecFor(V03).

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
func decodeStatus(raw json.RawMessage, path string, known func(TaskState) bool,
	decodeMessage func(json.RawMessage, string) (*Message, *Error)) (TaskStatus, *Error) {
	var in wireStatusIn
	if _, e := decodeObject(raw, path, true, &in); e != nil {
		return TaskStatus{}, e
	}
	st := TaskStatus{State: TaskState(in.State)}
	if !known(st.State) {
		return TaskStatus{}, ErrInvalidParams(joinPath(path, "state"), fmt.Sprintf("unknown state %q", in.State))
	}
	if in.Timestamp != "" {
		ts, err := parseTime(in.Timestamp)
		if err != nil {
			return TaskStatus{}, ErrInvalidParams(joinPath(path, "timestamp"), "is not an ISO 8601 date-time")
		}
		st.Timestamp = ts
	}
	if !isAbsent(in.Message) {
		m, e := decodeMessage(in.Message, joinPath(path, "message"))
		if e != nil {
			return TaskStatus{}, e
		}
		st.Message = m
	}
	return st, nil
}

func decodeArtifact03(raw json.RawMessage, path string) (Artifact, *Error) {
	var in wire03ArtifactIn
	if _, e := decodeObject(raw, path, true, &in); e != nil {
		return Artifact{}, e
	}
	parts, e := decodePartsList(in.Parts, in.Parts != nil, joinPath(path, "parts"), "kind")
	if e != nil {
		return Artifact{}, e
	}
	return Artifact{ArtifactID: in.ArtifactID, Name: in.Name, Description: in.Description,
		Parts: parts, Extensions: in.Extensions, Metadata: in.Metadata}, nil
}

// DecodeEvent reads a Task, Message, status-update or artifact-update object
// by its `kind`. Errors use the InvalidParams code and name the bad field.
func (c *v03Codec) DecodeEvent(data []byte) (Event, error) {
	var in wire03EventIn
	if _, e := decodeObject(data, "", true, &in); e != nil {
		return Event{}, e
	}
	switch in.Kind {
	case "task":
		st, e := decodeStatus(in.Status, "status", TaskState.Valid, decodeMessage03)
		if e != nil {
			return Event{}, e
		}
		t := &Task{ID: in.ID, ContextID: in.ContextID, Status: st, Metadata: in.Metadata}
		for i, h := range in.History {
			m, e := decodeMessage03(h, indexPath("history", i))
			if e != nil {
				return Event{}, e
			}
			t.History = append(t.History, *m)
		}
		for i, a := range in.Artifacts {
			art, e := decodeArtifact03(a, indexPath("artifacts", i))
			if e != nil {
				return Event{}, e
			}
			t.Artifacts = append(t.Artifacts, art)
		}
		return Event{Task: t}, nil
	case "message":
		m, e := decodeMessage03(data, "")
		if e != nil {
			return Event{}, e
		}
		return Event{Message: m}, nil
	case "status-update":
		st, e := decodeStatus(in.Status, "status", TaskState.Valid, decodeMessage03)
		if e != nil {
			return Event{}, e
		}
		return Event{Status: &StatusUpdate{TaskID: in.TaskID, ContextID: in.ContextID, Status: st,
			Final: in.Final, Metadata: in.Metadata}}, nil
	case "artifact-update":
		a, e := decodeArtifact03(in.Artifact, "artifact")
		if e != nil {
			return Event{}, e
		}
		return Event{Artifact: &ArtifactUpdate{TaskID: in.TaskID, ContextID: in.ContextID, Artifact: a,
			Append: in.Append, LastChunk: in.LastChunk, Metadata: in.Metadata}}, nil
	}
	return Event{}, ErrInvalidParams("kind", fmt.Sprintf("unknown kind %q", in.Kind))
}
