// Package wire holds the canonical A2A model that every other package of
// a2amock shares, and one codec per wire dialect (v1.0, v0.3, v0.2, v0.1)
// that turns it into bytes and back.
//
// The canonical types are dialect-neutral: states are the lowercase names the
// spec used before v1.0, parts carry an explicit Kind, and a Task has no
// `kind` or `final` field. Codecs are pure functions from canonical to wire
// and back; the agent, the behaviors and the testkit never see wire JSON.
package wire

import (
	"time"
)

// TaskState is a task's lifecycle state in its canonical (pre-v1.0, lowercase)
// spelling. Codecs map it to ProtoJSON enum names for v1.0.
type TaskState string

// The task states of every A2A version. StateUnknown exists only up to v0.3.
const (
	StateUnspecified   TaskState = ""
	StateSubmitted     TaskState = "submitted"
	StateWorking       TaskState = "working"
	StateInputRequired TaskState = "input-required"
	StateAuthRequired  TaskState = "auth-required"
	StateCompleted     TaskState = "completed"
	StateFailed        TaskState = "failed"
	StateCanceled      TaskState = "canceled"
	StateRejected      TaskState = "rejected"
	StateUnknown       TaskState = "unknown"
)

// AllStates lists the states a task can be in, in lifecycle order.
var AllStates = []TaskState{StateSubmitted, StateWorking, StateInputRequired, StateAuthRequired,
	StateCompleted, StateFailed, StateCanceled, StateRejected}

// Terminal reports whether no further transition is allowed from s.
func (s TaskState) Terminal() bool {
	switch s {
	case StateCompleted, StateFailed, StateCanceled, StateRejected:
		return true
	}
	return false
}

// Interrupted reports whether s waits for the client (input or auth).
func (s TaskState) Interrupted() bool {
	return s == StateInputRequired || s == StateAuthRequired
}

// Valid reports whether s is one of the known states.
func (s TaskState) Valid() bool {
	for _, k := range AllStates {
		if k == s {
			return true
		}
	}
	return s == StateUnknown
}

// Role says who wrote a message.
type Role string

// Message roles.
const (
	RoleUser  Role = "user"
	RoleAgent Role = "agent"
)

// PartKind says which member of a Part is set.
type PartKind string

// Part kinds. A v1.0 `raw` part and a v0.x file part with bytes are both
// PartFile with Raw set; a v1.0 `url` part and a v0.x file part with a uri are
// PartFile with URL set.
const (
	PartText PartKind = "text"
	PartFile PartKind = "file"
	PartData PartKind = "data"
)

// Part is one piece of message or artifact content.
type Part struct {
	Kind      PartKind
	Text      string
	Raw       []byte
	URL       string
	Data      any
	MediaType string
	Filename  string
	Metadata  map[string]any
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// Message is one turn of a conversation.
type Message struct {
	MessageID        string
	ContextID        string
	TaskID           string
	Role             Role
	Parts            []Part
	Metadata         map[string]any
	Extensions       []string
	ReferenceTaskIDs []string
}

// Text joins the text parts of m.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	out := ""
	for _, p := range m.Parts {
		if p.Kind == PartText {
			if out != "" {
				out += "\n"
			}
			out += p.Text
		}
	}
	return out
}

// TaskStatus is a task's state with the time it was entered.
type TaskStatus struct {
	State     TaskState
	Message   *Message
	Timestamp time.Time
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string
	Name        string
	Description string
	Parts       []Part
	Metadata    map[string]any
	Extensions  []string
}

// Task is the unit of work an agent runs.
type Task struct {
	ID        string
	ContextID string
	Status    TaskStatus
	History   []Message
	Artifacts []Artifact
	Metadata  map[string]any
}

// TrimHistory keeps the last n messages of t's history, as a request's
// historyLength asks (n nil or negative: all; 0: none), and returns t.
func (t *Task) TrimHistory(n *int) *Task {
	if n == nil || *n < 0 {
		return t
	}
	if *n == 0 {
		t.History = nil
	} else if len(t.History) > *n {
		t.History = t.History[len(t.History)-*n:]
	}
	return t
}

// Clone returns a deep enough copy of t for handing out of a store: slices are
// copied, parts and metadata maps are shared (they are never mutated).
func (t *Task) Clone() *Task {
	if t == nil {
		return nil
	}
	if len(t.History) > 1 || len(t.Artifacts) > 1 {
		c := *t
		c.History = append([]Message(nil), t.History...)
		c.Artifacts = append([]Artifact(nil), t.Artifacts...)
		return &c
	}
	// A task of one message and one artifact at most (an honest send's) in
	// one allocation rather than three; the slices as append gives them
	// (nil when empty, else of length and capacity 1).
	b := &taskBlock{task: *t}
	b.task.History, b.task.Artifacts = nil, nil
	if len(t.History) == 1 {
		b.history[0] = t.History[0]
		b.task.History = b.history[:]
	}
	if len(t.Artifacts) == 1 {
		b.artifact[0] = t.Artifacts[0]
		b.task.Artifacts = b.artifact[:]
	}
	return &b.task
}

// taskBlock is a cloned task with room for one message and one artifact.
type taskBlock struct {
	task     Task
	history  [1]Message
	artifact [1]Artifact
}

// StatusUpdate is a TaskStatusUpdateEvent. Final is meaningful for v0.x only:
// the v1.0 codec never writes it.
type StatusUpdate struct {
	TaskID    string
	ContextID string
	Status    TaskStatus
	Final     bool
	Metadata  map[string]any
}

// ArtifactUpdate is a TaskArtifactUpdateEvent.
type ArtifactUpdate struct {
	TaskID    string
	ContextID string
	Artifact  Artifact
	Append    bool
	LastChunk bool
	Metadata  map[string]any
}

// Event is one item of a stream (or one push payload): exactly one member is
// set.
type Event struct {
	Task     *Task
	Message  *Message
	Status   *StatusUpdate
	Artifact *ArtifactUpdate
}

// TaskID returns the id of the task the event is about.
func (e Event) TaskID() string {
	switch {
	case e.Task != nil:
		return e.Task.ID
	case e.Status != nil:
		return e.Status.TaskID
	case e.Artifact != nil:
		return e.Artifact.TaskID
	case e.Message != nil:
		return e.Message.TaskID
	}
	return ""
}

// State returns the task state the event carries, or StateUnspecified.
func (e Event) State() TaskState {
	switch {
	case e.Task != nil:
		return e.Task.Status.State
	case e.Status != nil:
		return e.Status.Status.State
	}
	return StateUnspecified
}

// PushConfig is a push-notification (webhook) configuration for a task.
type PushConfig struct {
	ID              string
	TaskID          string
	URL             string
	Token           string
	AuthSchemes     []string
	AuthCredentials string
	Tenant          string
}

// TaskPage is one page of ListTasks.
type TaskPage struct {
	Tasks         []*Task
	NextPageToken string
	PageSize      int
	TotalSize     int
}
