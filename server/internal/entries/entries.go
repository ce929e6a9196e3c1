// Package entries builds and writes the journal entries of the server's
// request path: a decoded request (ids bounded, the message's text
// fingerprinted, its metadata keys without their values), a request refused
// before it could be decoded or served, its response, and the engine's
// notes; Writer numbers the requests and counts every entry in the metrics
// as it writes it. What the journal keeps of an id or a path is bounded here, so
// that a client sending megabytes of id costs the journal a few bytes.
package entries

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/wire"
)

// idBytes is how much of an over-long id the journal keeps.
const idBytes = 64

// detailBytes is how much of an error's message the journal keeps.
const detailBytes = 1024

// Request is the entry of a decoded request numbered n, with the path it
// came on and the A2A-Version it carried.
func Request(agent string, req *wire.Request, n int64, path, version string) journal.Entry {
	e := journal.Entry{Agent: agent, Kind: journal.EntryRequest, Op: req.Op, Method: ID(req.Method), Dialect: req.Dialect,
		Binding: req.Binding, Request: n, TaskID: ID(req.TaskID), Path: Path(path), Version: ID(version)}
	if req.Op == wire.OpListTasks || req.Op == wire.OpListPushConfigs {
		e.PageToken = ID(req.List.PageToken)
	}
	if m := req.Message; m != nil {
		e.RefTaskID, e.ContextID, e.MessageID = ID(m.TaskID), ID(m.ContextID), ID(m.MessageID)
		sum := sha256.Sum256([]byte(m.Text()))
		e.MessageDigest = hex.EncodeToString(sum[:8])
		for k := range m.Metadata {
			e.MetadataKeys = append(e.MetadataKeys, k)
		}
		slices.Sort(e.MetadataKeys)
	}
	for _, p := range req.Ignored {
		e.Ignored = append(e.Ignored, ID(p))
	}
	return e
}

// Response is the entry of the answer to request reqNo: its result, or
// its error.
func Response(agent string, req *wire.Request, reqNo int64, res *wire.Result, err *wire.Error) journal.Entry {
	e := journal.Entry{Agent: agent, Kind: journal.EntryResponse, Op: req.Op, Method: ID(req.Method), Dialect: req.Dialect,
		Binding: req.Binding, Request: reqNo, TaskID: ID(req.TaskID)}
	if err != nil {
		// An error may quote what the client sent (the method it named).
		e.ErrorCode, e.Detail = err.Code, truncate(err.Message, detailBytes, detailBytes)
	}
	if res != nil && res.Task != nil {
		e.TaskID, e.ContextID, e.State = res.Task.ID, res.Task.ContextID, res.Task.Status.State
	}
	if res != nil && res.Page != nil {
		e.PageToken = res.Page.NextPageToken
	}
	if res != nil && req.Op == wire.OpListPushConfigs {
		e.PageToken = res.NextPushConfigsToken
	}
	if req.Message != nil {
		e.RefTaskID = ID(req.Message.TaskID)
	}
	return e
}

// Note is the entry of an engine note: a decision, an emitted event, or
// a task dropped by the store's bounds.
func Note(agent string, n engine.Note) journal.Entry {
	e := journal.Entry{Agent: agent, Op: n.Op, Dialect: n.Dialect, Binding: n.Binding, TaskID: n.TaskID, ContextID: n.ContextID,
		RefTaskID: n.RefTaskID, State: n.State, Detail: n.Detail, ErrorCode: n.ErrorCode, NotActed: n.NotActed, Time: n.Time}
	switch n.Kind {
	case engine.NoteDecision:
		e.Kind = journal.EntryDecision
	case engine.NoteDropped:
		e.Kind = journal.EntryDropped
	default:
		e.Kind = journal.EntryEvent
	}
	return e
}

// ID is id as the journal keeps it: ids longer than binding.MaxIDBytes
// are cut to their first idBytes bytes and marked with their length.
func ID(id string) string { return truncate(id, binding.MaxIDBytes, idBytes) }

// Path bounds a request path in the journal the same way.
func Path(p string) string { return truncate(p, 4*binding.MaxIDBytes, 4*binding.MaxIDBytes) }

// truncate returns s when it is at most limit bytes long, else its first
// keep bytes (not splitting a UTF-8 sequence) marked with s's length.
func truncate(s string, limit, keep int) string {
	if len(s) <= limit {
		return s
	}
	cut := s[:keep]
	for i := 0; i < utf8.UTFMax-1 && !utf8.ValidString(cut); i++ {
		cut = cut[:len(cut)-1]
	}
	return cut + "…(truncated, " + strconv.Itoa(len(s)) + " bytes)"
}
