package a2aclient

import (
	"encoding/json"
	"strings"

	"github.com/a2amock/a2amock/wire"
)

// The client's own wire structs. One set serves both dialects: v1.0 leaves
// kind and final empty, v0.3 sets them; readers accept either spelling of
// states and roles.

type wRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type wRPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type wResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *wRPCError      `json:"error"`
}

type wFile struct {
	Bytes    []byte `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Name     string `json:"name,omitempty"`
}

type wPart struct {
	Kind      string          `json:"kind,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Raw       []byte          `json:"raw,omitempty"`
	URL       string          `json:"url,omitempty"`
	File      *wFile          `json:"file,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

type wMessage struct {
	Kind             string         `json:"kind,omitempty"`
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []wPart        `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
}

type wStatus struct {
	State   string    `json:"state"`
	Message *wMessage `json:"message,omitempty"`
}

type wArtifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []wPart        `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type wTask struct {
	Kind      string         `json:"kind,omitempty"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    wStatus        `json:"status"`
	Artifacts []wArtifact    `json:"artifacts,omitempty"`
	History   []wMessage     `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wStatusUpdate struct {
	Kind      string         `json:"kind,omitempty"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    wStatus        `json:"status"`
	Final     bool           `json:"final,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wArtifactUpdate struct {
	Kind      string         `json:"kind,omitempty"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  wArtifact      `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type wStreamResponse struct {
	Task           *wTask           `json:"task"`
	Message        *wMessage        `json:"message"`
	StatusUpdate   *wStatusUpdate   `json:"statusUpdate"`
	ArtifactUpdate *wArtifactUpdate `json:"artifactUpdate"`
}

// wireState reads "TASK_STATE_INPUT_REQUIRED" or "input-required".
func wireState(s string) wire.TaskState {
	if rest, ok := strings.CutPrefix(s, "TASK_STATE_"); ok {
		s = strings.ReplaceAll(strings.ToLower(rest), "_", "-")
	}
	if s == "unspecified" {
		return wire.StateUnspecified
	}
	return wire.TaskState(s)
}

func wireRole(s string) wire.Role {
	switch s {
	case "ROLE_USER", "user":
		return wire.RoleUser
	case "ROLE_AGENT", "agent":
		return wire.RoleAgent
	}
	return wire.Role(strings.ToLower(strings.TrimPrefix(s, "ROLE_")))
}

func wireMessage(m *wire.Message, d wire.Dialect) wMessage {
	w := wMessage{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		Metadata: m.Metadata, ReferenceTaskIDs: m.ReferenceTaskIDs, Extensions: m.Extensions}
	role := m.Role
	if role == "" {
		role = wire.RoleUser
	}
	if d == wire.V03 {
		w.Kind, w.Role = "message", string(role)
	} else {
		w.Role = "ROLE_" + strings.ToUpper(string(role))
	}
	w.Parts = make([]wPart, 0, len(m.Parts))
	for _, p := range m.Parts {
		w.Parts = append(w.Parts, wirePart(p, d))
	}
	return w
}

func wirePart(p wire.Part, d wire.Dialect) wPart {
	w := wPart{Metadata: p.Metadata}
	var data json.RawMessage
	if p.Kind == wire.PartData {
		data, _ = json.Marshal(p.Data)
	}
	if d == wire.V03 {
		w.Kind = string(p.Kind)
		switch p.Kind {
		case wire.PartFile:
			w.File = &wFile{Bytes: p.Raw, URI: p.URL, MimeType: p.MediaType, Name: p.Filename}
		case wire.PartData:
			w.Data = data
		default:
			w.Kind = "text"
			text := p.Text
			w.Text = &text
		}
		return w
	}
	w.MediaType, w.Filename = p.MediaType, p.Filename
	switch p.Kind {
	case wire.PartFile:
		if p.URL != "" {
			w.URL = p.URL
		} else {
			w.Raw = p.Raw
		}
	case wire.PartData:
		w.Data = data
	default:
		text := p.Text
		w.Text = &text
	}
	return w
}

func (w wPart) canonical() wire.Part {
	p := wire.Part{Metadata: w.Metadata, MediaType: w.MediaType, Filename: w.Filename}
	switch {
	case w.Text != nil:
		p.Kind, p.Text = wire.PartText, *w.Text
	case w.File != nil:
		p.Kind, p.Raw, p.URL, p.MediaType, p.Filename = wire.PartFile, w.File.Bytes, w.File.URI, w.File.MimeType, w.File.Name
	case len(w.Raw) > 0 || w.URL != "":
		p.Kind, p.Raw, p.URL = wire.PartFile, w.Raw, w.URL
	case len(w.Data) > 0:
		p.Kind = wire.PartData
		_ = json.Unmarshal(w.Data, &p.Data)
	default:
		p.Kind = wire.PartText
	}
	return p
}

func (w *wMessage) canonical() *wire.Message {
	if w == nil {
		return nil
	}
	m := &wire.Message{MessageID: w.MessageID, ContextID: w.ContextID, TaskID: w.TaskID, Role: wireRole(w.Role),
		Metadata: w.Metadata, ReferenceTaskIDs: w.ReferenceTaskIDs, Extensions: w.Extensions}
	for _, p := range w.Parts {
		m.Parts = append(m.Parts, p.canonical())
	}
	return m
}

func (w wStatus) canonical() wire.TaskStatus {
	return wire.TaskStatus{State: wireState(w.State), Message: w.Message.canonical()}
}

func (w wArtifact) canonical() wire.Artifact {
	a := wire.Artifact{ArtifactID: w.ArtifactID, Name: w.Name, Description: w.Description, Metadata: w.Metadata}
	for _, p := range w.Parts {
		a.Parts = append(a.Parts, p.canonical())
	}
	return a
}

func (w *wTask) canonical() *wire.Task {
	t := &wire.Task{ID: w.ID, ContextID: w.ContextID, Status: w.Status.canonical(), Metadata: w.Metadata}
	for _, a := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, a.canonical())
	}
	for _, m := range w.History {
		t.History = append(t.History, *m.canonical())
	}
	return t
}

func (w *wStatusUpdate) canonical() *wire.StatusUpdate {
	return &wire.StatusUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Status: w.Status.canonical(), Final: w.Final, Metadata: w.Metadata}
}

func (w *wArtifactUpdate) canonical() *wire.ArtifactUpdate {
	return &wire.ArtifactUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Artifact: w.Artifact.canonical(),
		Append: w.Append, LastChunk: w.LastChunk, Metadata: w.Metadata}
}
