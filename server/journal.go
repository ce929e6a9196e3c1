package server

import (
	"sync"
	"time"

	"github.com/a2amock/a2amock/a2a"
)

// EntryKind says what a journal entry records.
type EntryKind string

// The journal entry kinds.
const (
	// EntryRequest is a request as it arrived (after decoding).
	EntryRequest EntryKind = "request"
	// EntryResponse is a unary answer, or the start of a stream.
	EntryResponse EntryKind = "response"
	// EntryDecision is what the agent decided to do with a message.
	EntryDecision EntryKind = "decision"
	// EntryEvent is a state change or artifact the agent emitted for a task.
	EntryEvent EntryKind = "event"
	// EntryStreamClose is the end of a stream, with how it ended.
	EntryStreamClose EntryKind = "stream-close"
	// EntryCard is a card fetch.
	EntryCard EntryKind = "card"
)

// Entry is one line of the journal. Fields that do not apply are empty.
type Entry struct {
	Seq     int64       `json:"seq"`
	Time    time.Time   `json:"time"`
	Agent   string      `json:"agent"`
	Kind    EntryKind   `json:"kind"`
	Op      a2a.Op      `json:"op,omitempty"`
	Method  string      `json:"method,omitempty"`
	Dialect a2a.Dialect `json:"dialect,omitempty"`
	Binding a2a.Binding `json:"binding,omitempty"`
	// Request numbers the HTTP request the entry belongs to, so a request,
	// its decision and its response can be joined.
	Request   int64         `json:"request,omitempty"`
	TaskID    string        `json:"taskId,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
	MessageID string        `json:"messageId,omitempty"`
	State     a2a.TaskState `json:"state,omitempty"`
	// RefTaskID is the task id the client's message named (continuations).
	RefTaskID string `json:"refTaskId,omitempty"`
	ErrorCode int    `json:"errorCode,omitempty"`
	HTTP      int    `json:"http,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// Path is the HTTP path of card fetches and REST requests.
	Path string `json:"path,omitempty"`
	// Metadata holds the message metadata keys (values are not kept, so
	// no credential ends up in the journal).
	MetadataKeys []string `json:"metadataKeys,omitempty"`
}

// Journal is the ordered, bounded record of everything the server did. It
// keeps the newest Retention entries; Seq keeps counting across evictions so
// a reader can tell entries were dropped.
type Journal struct {
	mu        sync.Mutex
	retention int
	buf       []Entry
	start     int // index of the oldest entry in buf when full
	full      bool
	seq       int64
}

func newJournal(retention int) *Journal {
	if retention <= 0 {
		retention = 100_000
	}
	return &Journal{retention: retention}
}

func (j *Journal) add(e Entry) {
	j.mu.Lock()
	j.seq++
	e.Seq = j.seq
	if !j.full {
		j.buf = append(j.buf, e)
		if len(j.buf) == j.retention {
			j.full = true
		}
	} else {
		j.buf[j.start] = e
		j.start = (j.start + 1) % j.retention
	}
	j.mu.Unlock()
}

// Entries returns a copy of the retained entries, oldest first.
func (j *Journal) Entries() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Entry, 0, len(j.buf))
	out = append(out, j.buf[j.start:]...)
	out = append(out, j.buf[:j.start]...)
	return out
}

// Since returns the retained entries with Seq > seq.
func (j *Journal) Since(seq int64) []Entry {
	all := j.Entries()
	for i, e := range all {
		if e.Seq > seq {
			return all[i:]
		}
	}
	return nil
}

// Len returns the number of retained entries.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.buf)
}

func (j *Journal) reset() {
	j.mu.Lock()
	j.buf, j.start, j.full, j.seq = nil, 0, false, 0
	j.mu.Unlock()
}
