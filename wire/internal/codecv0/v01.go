package codecv0

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// v01Codec speaks the legacy v0.1.0 `tasks/send` dialect. Its differences
// from v0.2+: parts are discriminated by `type`, objects carry no `kind`,
// the conversation id is `sessionId` (canonical ContextID), messages have no
// messageId, artifacts are addressed by `index`, and the CLIENT picks the
// task id. A send with an id the server does not know is, in v0.1, a request
// to create a task with that id; the codec only reports the id faithfully
// (in Request.TaskID and Message.TaskID) and leaves that decision to the
// server.
//
// Lossy spots, all deliberate: v0.1 has no "rejected" or "auth-required"
// state, so they are written as "failed" and "input-required"; artifact ids
// do not exist, so an artifact's index is its ArtifactID when that is a
// decimal number and otherwise its position in the task (0 in an artifact
// update); extensions, reference task ids and message ids are dropped.
type v01Codec struct{}

func (v01Codec) Dialect() wire.Dialect { return wire.V01 }

// Methods returns a shared map that callers must not modify.
func (v01Codec) Methods() map[string]wire.Op { return wire.Describe(wire.V01).Methods }

// ---------------------------------------------------------------------------
// Wire types (v0.1.0).

// wire01Part is wire03Part with v0.1's name for the discriminator.
type wire01Part struct {
	Kind string `json:"type"`
	partBody
}

type wire01Message struct {
	Role     string         `json:"role"`
	Parts    []wire01Part   `json:"parts"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type wire01Artifact struct {
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []wire01Part   `json:"parts"`
	Index       int            `json:"index"`
	Append      bool           `json:"append,omitempty"`
	LastChunk   bool           `json:"lastChunk,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type wire01Task struct {
	ID        string                         `json:"id"`
	SessionID string                         `json:"sessionId,omitempty"`
	Status    wirejson.Status[wire01Message] `json:"status"`
	Artifacts []wire01Artifact               `json:"artifacts,omitempty"`
	History   []wire01Message                `json:"history,omitempty"`
	Metadata  map[string]any                 `json:"metadata,omitempty"`
}

type wire01StatusUpdate struct {
	ID       string                         `json:"id"`
	Status   wirejson.Status[wire01Message] `json:"status"`
	Final    bool                           `json:"final"`
	Metadata map[string]any                 `json:"metadata,omitempty"`
}

type wire01ArtifactUpdate struct {
	ID       string         `json:"id"`
	Artifact wire01Artifact `json:"artifact"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type wire01PushConfig struct {
	URL            string    `json:"url"`
	Token          string    `json:"token,omitempty"`
	Authentication *wireAuth `json:"authentication,omitempty"`
}

type wire01TaskPushConfig struct {
	ID                     string           `json:"id"`
	PushNotificationConfig wire01PushConfig `json:"pushNotificationConfig"`
}

// ---------------------------------------------------------------------------
// Canonical → wire.

func encodeMessage01(m *wire.Message) (*wire01Message, error) {
	parts, err := encodeParts[wire01Part](m.Parts)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	return &wire01Message{Role: string(m.Role), Parts: parts, Metadata: m.Metadata}, nil
}

// artifactIndex maps an artifact id to a v0.1 index; see v01Codec.
func artifactIndex(id string, fallback int) int {
	if n, err := strconv.Atoi(id); err == nil && n >= 0 {
		return n
	}
	return fallback
}

func encodeArtifact01(a wire.Artifact, index int) (wire01Artifact, error) {
	parts, err := encodeParts[wire01Part](a.Parts)
	if err != nil {
		return wire01Artifact{}, fmt.Errorf("artifact %q: %w", a.ArtifactID, err)
	}
	return wire01Artifact{
		Name:        a.Name,
		Description: a.Description,
		Parts:       parts,
		Index:       artifactIndex(a.ArtifactID, index),
		Metadata:    a.Metadata,
	}, nil
}

func encodeTask01(t *wire.Task) (*wire01Task, error) {
	st, err := encodeStatus(t.Status, wire.StateToV01, encodeMessage01)
	if err != nil {
		return nil, err
	}
	out := &wire01Task{ID: t.ID, SessionID: t.ContextID, Status: st, Metadata: t.Metadata}
	for i, a := range t.Artifacts {
		wa, err := encodeArtifact01(a, i)
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, wa)
	}
	for i := range t.History {
		m, err := encodeMessage01(&t.History[i])
		if err != nil {
			return nil, fmt.Errorf("history[%d]: %w", i, err)
		}
		out.History = append(out.History, *m)
	}
	return out, nil
}

// messageTask wraps a bare Message reply in a completed Task, because v0.1
// has no message-only replies: every answer is a Task, addressed by the id
// the client chose (which the message carries as TaskID).
func messageTask(m *wire.Message) *wire.Task {
	return &wire.Task{ID: m.TaskID, ContextID: m.ContextID, Status: wire.TaskStatus{State: wire.StateCompleted, Message: m}}
}

func marshalTask01(t *wire.Task) ([]byte, error) {
	w, err := encodeTask01(t)
	if err != nil {
		return nil, fmt.Errorf("a2a v0.1: task %s: %w", t.ID, err)
	}
	return json.Marshal(w)
}

func encodePush01(pc *wire.PushConfig) wire01TaskPushConfig {
	return wire01TaskPushConfig{
		ID: pc.TaskID,
		PushNotificationConfig: wire01PushConfig{
			URL:            pc.URL,
			Token:          pc.Token,
			Authentication: encodeAuth(pc),
		},
	}
}

// EncodeResult renders a unary result. A Message reply to tasks/send becomes
// a completed Task (see messageTask). Operations v0.1 lacks are errors.
func (v01Codec) EncodeResult(op wire.Op, res *wire.Result) ([]byte, error) {
	if res == nil {
		return nil, fmt.Errorf("a2a v0.1: %s: nil result", op)
	}
	switch op {
	case wire.OpSend, wire.OpGetTask, wire.OpCancelTask:
		switch {
		case res.Task != nil:
			return marshalTask01(res.Task)
		case res.Message != nil && op == wire.OpSend:
			return marshalTask01(messageTask(res.Message))
		}
		return nil, fmt.Errorf("a2a v0.1: %s result has no task", op)
	case wire.OpSetPushConfig, wire.OpGetPushConfig:
		if res.PushConfig == nil {
			return nil, fmt.Errorf("a2a v0.1: %s result has no push config", op)
		}
		return json.Marshal(encodePush01(res.PushConfig))
	}
	return nil, fmt.Errorf("a2a v0.1: operation %s has no unary result in this dialect", op)
}

// EncodeEvent renders a tasks/sendSubscribe result, which in v0.1 is only
// ever a TaskStatusUpdateEvent or a TaskArtifactUpdateEvent. A Task event
// (the first event of a newer-style stream, or a snapshot) is therefore
// written as a status update of that task, final when the task is terminal
// or waiting for input; a Message event becomes a final "completed" status
// update carrying the message. A StatusUpdate's Final is used as given.
func (v01Codec) EncodeEvent(ev wire.Event) ([]byte, error) {
	switch {
	case ev.Task != nil:
		return marshalStatus01(ev.Task.ID, ev.Task.Status, ev.Task.Status.State.Terminal() || ev.Task.Status.State.Interrupted(), nil)
	case ev.Message != nil:
		return marshalStatus01(ev.Message.TaskID, wire.TaskStatus{State: wire.StateCompleted, Message: ev.Message}, true, nil)
	case ev.Status != nil:
		return marshalStatus01(ev.Status.TaskID, ev.Status.Status, ev.Status.Final, ev.Status.Metadata)
	case ev.Artifact != nil:
		a, err := encodeArtifact01(ev.Artifact.Artifact, 0)
		if err != nil {
			return nil, fmt.Errorf("a2a v0.1: artifact update: %w", err)
		}
		a.Append, a.LastChunk = ev.Artifact.Append, ev.Artifact.LastChunk
		return json.Marshal(wire01ArtifactUpdate{ID: ev.Artifact.TaskID, Artifact: a, Metadata: ev.Artifact.Metadata})
	}
	return nil, fmt.Errorf("a2a v0.1: empty event")
}

func marshalStatus01(taskID string, s wire.TaskStatus, final bool, md map[string]any) ([]byte, error) {
	st, err := encodeStatus(s, wire.StateToV01, encodeMessage01)
	if err != nil {
		return nil, fmt.Errorf("a2a v0.1: status update: %w", err)
	}
	return json.Marshal(wire01StatusUpdate{ID: taskID, Status: st, Final: final, Metadata: md})
}

// EncodePush renders a webhook body: the Task for a Task event, a completed
// Task for a Message event, and, since an update carries too little to build
// a Task from, the update event object itself for status/artifact events.
func (c v01Codec) EncodePush(ev wire.Event) ([]byte, error) {
	switch {
	case ev.Task != nil:
		return marshalTask01(ev.Task)
	case ev.Message != nil:
		return marshalTask01(messageTask(ev.Message))
	}
	return c.EncodeEvent(ev)
}

// EncodeErrorData renders e.Data as the error's data object (v0.1 requires
// an object there, which a map always is).
func (v01Codec) EncodeErrorData(e *wire.Error) []byte { return wirejson.EncodeErrorData(e) }

// ---------------------------------------------------------------------------
// Wire → canonical.

type wire01MessageIn struct {
	Role     *string           `json:"role"`
	Parts    []json.RawMessage `json:"parts"`
	Metadata map[string]any    `json:"metadata"`
}

func decodeMessage01(raw json.RawMessage, path string) (*wire.Message, *wire.Error) {
	var in wire01MessageIn
	if _, e := wirejson.DecodeObject(raw, path, true, &in); e != nil {
		return nil, e
	}
	role, e := decodeRole(in.Role, wirejson.JoinPath(path, "role"))
	if e != nil {
		return nil, e
	}
	parts, e := decodePartsList(in.Parts, in.Parts != nil, wirejson.JoinPath(path, "parts"), "type")
	if e != nil {
		return nil, e
	}
	return &wire.Message{Role: role, Parts: parts, Metadata: in.Metadata}, nil
}

type wire01PushConfigIn struct {
	URL            *string         `json:"url"`
	Token          string          `json:"token"`
	Authentication json.RawMessage `json:"authentication"`
}

func decodePushConfig01(raw json.RawMessage, path string, required bool) (*wire.PushConfig, *wire.Error) {
	var in wire01PushConfigIn
	present, e := wirejson.DecodeObject(raw, path, required, &in)
	if e != nil || !present {
		return nil, e
	}
	return pushConfigFrom(in.URL, in.Token, in.Authentication, path)
}

type wire01SendParams struct {
	ID               *string         `json:"id"`
	SessionID        string          `json:"sessionId"`
	Message          json.RawMessage `json:"message"`
	PushNotification json.RawMessage `json:"pushNotification"`
	HistoryLength    *int            `json:"historyLength"`
	Metadata         map[string]any  `json:"metadata"`
}

type wire01SetPushIn struct {
	ID                     *string         `json:"id"`
	PushNotificationConfig json.RawMessage `json:"pushNotificationConfig"`
}

// DecodeParams decodes TaskSendParams, TaskQueryParams, TaskIdParams and
// TaskPushNotificationConfig. For a send, params.id (the client-chosen task
// id) goes to both Request.TaskID and Message.TaskID, and sessionId to
// Message.ContextID; the message gets no MessageID, since v0.1 has none.
// tasks/send is always blocking in v0.1.
func (v01Codec) DecodeParams(op wire.Op, params []byte) (*wire.Request, *wire.Error) {
	req := &wire.Request{Op: op, Dialect: wire.V01}
	switch op {
	case wire.OpSend, wire.OpStream:
		var in wire01SendParams
		id, e := wirejson.DecodeWithID(params, &in, &in.ID, "id")
		if e != nil {
			return nil, e
		}
		msg, e := decodeMessage01(in.Message, "message")
		if e != nil {
			return nil, e
		}
		if e := wirejson.CheckHistoryLength(in.HistoryLength, "historyLength"); e != nil {
			return nil, e
		}
		pc, e := decodePushConfig01(in.PushNotification, "pushNotification", false)
		if e != nil {
			return nil, e
		}
		if pc != nil {
			pc.TaskID = id
		}
		msg.TaskID, msg.ContextID = id, in.SessionID
		req.TaskID, req.Message, req.Metadata = id, msg, in.Metadata
		req.Config = wire.SendConfig{HistoryLength: in.HistoryLength, PushConfig: pc}
	case wire.OpGetTask, wire.OpSubscribe:
		if e := decodeTaskQuery(params, req, true); e != nil {
			return nil, e
		}
	case wire.OpCancelTask, wire.OpGetPushConfig:
		if e := decodeTaskQuery(params, req, false); e != nil {
			return nil, e
		}
	case wire.OpSetPushConfig:
		var in wire01SetPushIn
		id, e := wirejson.DecodeWithID(params, &in, &in.ID, "id")
		if e != nil {
			return nil, e
		}
		pc, e := decodePushConfig01(in.PushNotificationConfig, "pushNotificationConfig", true)
		if e != nil {
			return nil, e
		}
		pc.TaskID = id
		req.TaskID, req.PushConfig = id, pc
	default:
		return nil, wire.Errorf(wire.CodeMethodNotFound, "operation %s does not exist in A2A v0.1", op)
	}
	return req, nil
}

// v0.1 server output → canonical, the inverse of EncodeResult/EncodeEvent
// for clients and tests (reach it with an interface assertion on
// codecs.For(wire.V01)). Artifact indexes come back as decimal ArtifactIDs.

type wire01ArtifactIn struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Parts       []json.RawMessage `json:"parts"`
	Index       int               `json:"index"`
	Append      bool              `json:"append"`
	LastChunk   bool              `json:"lastChunk"`
	Metadata    map[string]any    `json:"metadata"`
}

type wire01ObjectIn struct {
	ID        string            `json:"id"`
	SessionID string            `json:"sessionId"`
	Status    json.RawMessage   `json:"status"`
	Artifacts []json.RawMessage `json:"artifacts"`
	History   []json.RawMessage `json:"history"`
	Artifact  json.RawMessage   `json:"artifact"`
	Final     *bool             `json:"final"`
	Metadata  map[string]any    `json:"metadata"`
}

func decodeArtifact01(raw json.RawMessage, path string) (wire.Artifact, wire01ArtifactIn, *wire.Error) {
	var in wire01ArtifactIn
	if _, e := wirejson.DecodeObject(raw, path, true, &in); e != nil {
		return wire.Artifact{}, in, e
	}
	parts, e := decodePartsList(in.Parts, in.Parts != nil, wirejson.JoinPath(path, "parts"), "type")
	if e != nil {
		return wire.Artifact{}, in, e
	}
	return wire.Artifact{ArtifactID: strconv.Itoa(in.Index), Name: in.Name, Description: in.Description,
		Parts: parts, Metadata: in.Metadata}, in, nil
}

// DecodeEvent reads a v0.1 Task, TaskStatusUpdateEvent or
// TaskArtifactUpdateEvent. v0.1 has no discriminator: an object with
// `artifact` is an artifact update, one with `final` a status update, and
// anything else a Task.
func (v01Codec) DecodeEvent(data []byte) (wire.Event, error) {
	var in wire01ObjectIn
	if _, e := wirejson.DecodeObject(data, "", true, &in); e != nil {
		return wire.Event{}, e
	}
	switch {
	case !wirejson.IsAbsent(in.Artifact):
		a, w, e := decodeArtifact01(in.Artifact, "artifact")
		if e != nil {
			return wire.Event{}, e
		}
		return wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: in.ID, Artifact: a, Append: w.Append,
			LastChunk: w.LastChunk, Metadata: in.Metadata}}, nil
	case in.Final != nil:
		st, e := decodeStatus(in.Status, "status", wire.KnownStateV01, decodeMessage01)
		if e != nil {
			return wire.Event{}, e
		}
		return wire.Event{Status: &wire.StatusUpdate{TaskID: in.ID, Status: st, Final: *in.Final, Metadata: in.Metadata}}, nil
	}
	st, e := decodeStatus(in.Status, "status", wire.KnownStateV01, decodeMessage01)
	if e != nil {
		return wire.Event{}, e
	}
	t := &wire.Task{ID: in.ID, ContextID: in.SessionID, Status: st, Metadata: in.Metadata}
	for i, raw := range in.Artifacts {
		a, _, e := decodeArtifact01(raw, wirejson.IndexPath("artifacts", i))
		if e != nil {
			return wire.Event{}, e
		}
		t.Artifacts = append(t.Artifacts, a)
	}
	for i, raw := range in.History {
		m, e := decodeMessage01(raw, wirejson.IndexPath("history", i))
		if e != nil {
			return wire.Event{}, e
		}
		t.History = append(t.History, *m)
	}
	return wire.Event{Task: t}, nil
}
