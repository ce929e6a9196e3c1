package server

import (
	"sync"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/wire"
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
	// EntryJWKS is a fetch of an agent's JWKS (the keys its card
	// signatures name).
	EntryJWKS EntryKind = "jwks"
)

// Entry is one line of the journal. Fields that do not apply are empty.
type Entry struct {
	Seq     int64        `json:"seq"`
	Time    time.Time    `json:"time"`
	Agent   string       `json:"agent"`
	Kind    EntryKind    `json:"kind"`
	Op      wire.Op      `json:"op,omitempty"`
	Method  string       `json:"method,omitempty"`
	Dialect wire.Dialect `json:"dialect,omitempty"`
	Binding wire.Binding `json:"binding,omitempty"`
	// Request numbers the HTTP request the entry belongs to, so a request,
	// its decision and its response can be joined.
	Request   int64          `json:"request,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	MessageID string         `json:"messageId,omitempty"`
	State     wire.TaskState `json:"state,omitempty"`
	// RefTaskID is the task id the client's message named (continuations).
	RefTaskID string `json:"refTaskId,omitempty"`
	ErrorCode int    `json:"errorCode,omitempty"`
	HTTP      int    `json:"http,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// PageToken is, on a ListTasks request, the pageToken the client sent;
	// on its response, the nextPageToken the agent answered.
	PageToken string `json:"pageToken,omitempty"`
	// MessageDigest fingerprints a request message's text (the first 8
	// bytes of its SHA-256, hex), so a resent message can be recognised
	// without the journal keeping what it said.
	MessageDigest string `json:"messageDigest,omitempty"`
	// Version is the A2A-Version a request carried (header or query), empty
	// when it sent none.
	Version string `json:"version,omitempty"`
	// Path is the HTTP path of card fetches and REST requests.
	Path string `json:"path,omitempty"`
	// Metadata holds the message metadata keys (values are not kept, so
	// no credential ends up in the journal).
	MetadataKeys []string `json:"metadataKeys,omitempty"`
	// Behaviors lists the behaviors applied to the request, those in its
	// scope (their spec text); Skipped those configured on the agent that
	// were out of scope, with the scope key that excluded them. On a
	// stream-event or withheld entry, Behaviors names the stream behaviors
	// that shaped it.
	Behaviors []string          `json:"behaviors,omitempty"`
	Skipped   []SkippedBehavior `json:"skipped,omitempty"`
	// NotActed lists, on a decision, the behaviors in scope that left the
	// decision as it was, with why (a continuation naming a task the agent
	// does not hold, say).
	NotActed []behaviors.NotActed `json:"notActed,omitempty"`
	// Acted lists, on a request or card entry, the behaviors that changed
	// anything about it, each with the hook it acted through (a behavior in
	// scope that changed nothing is in Behaviors but not here).
	Acted []ActedBehavior `json:"acted,omitempty"`
}

// Journal is the ordered, bounded record of everything the server did. It
// keeps the newest Retention entries in blocks, so appending never copies old
// entries; Seq keeps counting across evictions so a reader can tell entries
// were dropped.
type Journal struct {
	mu        sync.Mutex
	retention int
	blocks    [][]Entry
	n         int
	seq       int64
	// changed is closed (and dropped) on the next add or reset, for the
	// readers of the event stream waiting for one; epoch counts resets.
	changed chan struct{}
	epoch   int64
}

const journalBlock = 1024

func newJournal(retention int) *Journal {
	if retention <= 0 {
		retention = 100_000
	}
	return &Journal{retention: retention}
}

func (j *Journal) add(e Entry) int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq = j.seq
	last := len(j.blocks) - 1
	if last < 0 || len(j.blocks[last]) == cap(j.blocks[last]) {
		j.blocks = append(j.blocks, make([]Entry, 0, journalBlock))
		last++
	}
	j.blocks[last] = append(j.blocks[last], e)
	j.n++
	j.signal()
	for j.n > j.retention {
		drop := min(j.n-j.retention, len(j.blocks[0]))
		clear(j.blocks[0][:drop])
		j.blocks[0] = j.blocks[0][drop:]
		j.n -= drop
		if len(j.blocks[0]) == 0 {
			j.blocks = j.blocks[1:]
		}
	}
	return e.Seq
}

// Entries returns a copy of the retained entries, oldest first.
func (j *Journal) Entries() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Entry, 0, j.n)
	for _, b := range j.blocks {
		out = append(out, b...)
	}
	return out
}

// Since returns the retained entries with Seq > seq. It copies only those:
// a client polling the control API for what is new would otherwise copy the
// whole journal (up to Retention entries) on every poll.
func (j *Journal) Since(seq int64) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	// The retained entries carry the consecutive numbers j.seq-j.n+1 .. j.seq.
	var skip int64
	if before := j.seq - int64(j.n); seq > before {
		skip = seq - before
	}
	if skip >= int64(j.n) {
		return nil
	}
	out := make([]Entry, 0, int64(j.n)-skip)
	for _, b := range j.blocks {
		if skip >= int64(len(b)) {
			skip -= int64(len(b))
			continue
		}
		out = append(out, b[skip:]...)
		skip = 0
	}
	return out
}

// Len returns the number of retained entries.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n
}

func (j *Journal) reset() {
	j.mu.Lock()
	j.blocks, j.n, j.seq = nil, 0, 0
	j.epoch++
	j.signal()
	j.mu.Unlock()
}

// Append journals e as one of the server's own entries (its Seq and Time
// are set here) and returns its Seq. It is for a front that answers some
// requests itself, as package record's replay does with the recorded bytes
// the model cannot express, so that the server's journal stays the one
// record of what every client received.
func (s *Server) Append(e Entry) int64 { return s.record(e) }

// NewRequestNumber returns a fresh request number (Entry.Request) for a
// request a front answers itself, from the sequence the server numbers its
// own requests with.
func (s *Server) NewRequestNumber() int64 { return s.reqSeq.Add(1) }
