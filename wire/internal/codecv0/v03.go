// Package codecv0 is the codecs of the pre-1.0 dialects: v0.3 and v0.2
// (the JSON-RPC "message/send" generation, with kind-tagged parts) and the
// legacy v0.1 (tasks/send), which shares their shapes. Reach them through
// package codecs.
package codecv0

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// Codecs are the codecs of v0.3, v0.2 (v0.3's shapes under v0.2's
// rules) and the legacy v0.1.
var Codecs = []wire.Codec{&v03Codec{dialect: wire.V03}, &v03Codec{dialect: wire.V02}, v01Codec{}}

// v03Codec speaks the `message/send` era JSON-RPC dialect: v0.3.0, and with
// dialect V02 also v0.2.x. Tasks, messages, parts, events and push configs
// have the same shape in the v0.2.6 and v0.3.0 schemas (checked definition by
// definition); v0.2 only lacks agent/getAuthenticatedExtendedCard, which was
// a plain HTTP GET then. The codec still encodes an extended-card result for
// V02 because the server may serve that GET with it.
type v03Codec struct {
	dialect wire.Dialect
}

func (c *v03Codec) Dialect() wire.Dialect { return c.dialect }

// Methods returns a shared map that callers must not modify.
func (c *v03Codec) Methods() map[string]wire.Op { return wire.Describe(c.dialect).Methods }

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
	Kind      string                         `json:"kind"`
	ID        string                         `json:"id"`
	ContextID string                         `json:"contextId"`
	Status    wirejson.Status[wire03Message] `json:"status"`
	History   []wire03Message                `json:"history,omitempty"`
	Artifacts []wire03Artifact               `json:"artifacts,omitempty"`
	Metadata  map[string]any                 `json:"metadata,omitempty"`
}

type wire03StatusUpdate struct {
	Kind      string                         `json:"kind"`
	TaskID    string                         `json:"taskId"`
	ContextID string                         `json:"contextId"`
	Status    wirejson.Status[wire03Message] `json:"status"`
	Final     bool                           `json:"final"`
	Metadata  map[string]any                 `json:"metadata,omitempty"`
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

func encodePartBody(p wire.Part) (partBody, error) {
	body := partBody{Metadata: p.Metadata}
	switch p.Kind {
	case wire.PartText:
		text := p.Text
		body.Text = &text
	case wire.PartFile:
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
	case wire.PartData:
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
func encodeParts[P wire01Part | wire03Part](parts []wire.Part) ([]P, error) {
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

func encodeMessage03(m *wire.Message) (*wire03Message, error) {
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
func encodeStatus[M any](s wire.TaskStatus, state func(wire.TaskState) string,
	encodeMessage func(*wire.Message) (*M, error)) (wirejson.Status[M], error) {
	out := wirejson.Status[M]{State: state(s.State), Timestamp: wirejson.FormatTime(s.Timestamp)}
	if s.Message != nil {
		m, err := encodeMessage(s.Message)
		if err != nil {
			return out, fmt.Errorf("status: %w", err)
		}
		out.Message = m
	}
	return out, nil
}

func encodeArtifact03(a wire.Artifact) (wire03Artifact, error) {
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

func encodeTask03(t *wire.Task) (*wire03Task, error) {
	st, err := encodeStatus(t.Status, wire.StateToV03, encodeMessage03)
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

func encodeAuth(pc *wire.PushConfig) *wireAuth {
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

func encodePush03(pc *wire.PushConfig) wire03TaskPushConfig {
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
func (c *v03Codec) EncodeResult(op wire.Op, res *wire.Result) ([]byte, error) {
	if res == nil {
		return nil, fmt.Errorf("a2a v%s: %s: nil result", c.dialect, op)
	}
	switch op {
	case wire.OpSend:
		switch {
		case res.Task != nil:
			return c.marshalTask(res.Task)
		case res.Message != nil:
			return c.marshalMessage(res.Message)
		}
		return nil, fmt.Errorf("a2a v%s: send result has neither a task nor a message", c.dialect)
	case wire.OpGetTask, wire.OpCancelTask:
		if res.Task == nil {
			return nil, fmt.Errorf("a2a v%s: %s result has no task", c.dialect, op)
		}
		return c.marshalTask(res.Task)
	case wire.OpSetPushConfig, wire.OpGetPushConfig:
		if res.PushConfig == nil {
			return nil, fmt.Errorf("a2a v%s: %s result has no push config", c.dialect, op)
		}
		return json.Marshal(encodePush03(res.PushConfig))
	case wire.OpListPushConfigs:
		out := make([]wire03TaskPushConfig, 0, len(res.PushConfigs))
		for i := range res.PushConfigs {
			out = append(out, encodePush03(&res.PushConfigs[i]))
		}
		return json.Marshal(out)
	case wire.OpDeletePush:
		return []byte("null"), nil
	case wire.OpExtendedCard:
		if len(res.Card) == 0 {
			return nil, fmt.Errorf("a2a v%s: extended card result has no card", c.dialect)
		}
		return res.Card, nil
	}
	return nil, fmt.Errorf("a2a v%s: operation %s has no unary result in this dialect", c.dialect, op)
}

func (c *v03Codec) marshalTask(t *wire.Task) ([]byte, error) {
	w, err := encodeTask03(t)
	if err != nil {
		return nil, fmt.Errorf("a2a v%s: task %s: %w", c.dialect, t.ID, err)
	}
	return json.Marshal(w)
}

func (c *v03Codec) marshalMessage(m *wire.Message) ([]byte, error) {
	w, err := encodeMessage03(m)
	if err != nil {
		return nil, fmt.Errorf("a2a v%s: %w", c.dialect, err)
	}
	return json.Marshal(w)
}

// EncodeEvent renders the bare object with its `kind`. A status update's
// `final` is taken from StatusUpdate.Final as given: deciding when a stream
// ends is the server's business, and a mock may want to get it wrong.
func (c *v03Codec) EncodeEvent(ev wire.Event) ([]byte, error) {
	switch {
	case ev.Task != nil:
		return c.marshalTask(ev.Task)
	case ev.Message != nil:
		return c.marshalMessage(ev.Message)
	case ev.Status != nil:
		st, err := encodeStatus(ev.Status.Status, wire.StateToV03, encodeMessage03)
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
func (c *v03Codec) EncodePush(ev wire.Event) ([]byte, error) { return c.EncodeEvent(ev) }

// EncodeErrorData renders e.Data as the error's data object, for example
// {"taskId":"t1"}; v0.x lets data be anything.
func (c *v03Codec) EncodeErrorData(e *wire.Error) []byte { return wirejson.EncodeErrorData(e) }
