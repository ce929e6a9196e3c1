package server

import (
	"strconv"

	"github.com/a2amock/a2amock/wire"
)

// EntryDropped records a task the store forgot while it was still running,
// because the agent reached MaxRunningTasks or TaskRetentionBytes; Detail
// says which bound. A client asking for the task afterwards gets
// TaskNotFoundError.
const EntryDropped EntryKind = "dropped"

// Defaults of the store's bounds (Config.MaxRunningTasks,
// Config.TaskRetentionBytes).
const (
	DefaultMaxRunningTasks    = 100_000
	DefaultTaskRetentionBytes = 256 << 20
)

// The store's bounds, per agent:
//
//   - TaskRetention: terminal tasks beyond it are forgotten, oldest first
//     (evictLocked).
//   - MaxRunningTasks: a new task past it makes the store drop the oldest
//     running task (its player stops, its streams end, EntryDropped is
//     journaled). Behaviors that never finish a task (never-terminal,
//     stuck-submitted) keep doing so; only the memory is bounded.
//   - TaskRetentionBytes: when the tasks' content (message and artifact
//     parts, metadata, ids) passes it, the oldest terminal tasks are
//     forgotten, then the oldest running ones are dropped, until it fits.
//
// The task the current send created or continued is never dropped.

// noteStateLocked keeps the count of running tasks as a task's state
// changes.
func (a *agent) noteStateLocked(from, to wire.TaskState) {
	switch {
	case from.Terminal() && !to.Terminal():
		a.running++
	case !from.Terminal() && to.Terminal():
		a.running--
	}
}

// resizeLocked recomputes the content size of e and the agent's total.
func (a *agent) resizeLocked(e *taskEntry) {
	n := taskBytes(e.task)
	a.bytes += n - e.bytes
	e.bytes = n
}

// boundLocked enforces MaxRunningTasks and TaskRetentionBytes after a send
// created or continued keep.
func (a *agent) boundLocked(keep *taskEntry) {
	cfg := &a.srv.cfg
	for a.running > cfg.MaxRunningTasks {
		if !a.dropOldestLocked(keep, false, "the agent has more than "+strconv.Itoa(cfg.MaxRunningTasks)+" running tasks (MaxRunningTasks): the oldest running task is dropped") {
			break
		}
	}
	for a.bytes > cfg.TaskRetentionBytes {
		if !a.dropOldestLocked(keep, true, "the agent's tasks hold more than "+strconv.FormatInt(cfg.TaskRetentionBytes, 10)+" bytes (TaskRetentionBytes): the oldest running task is dropped") {
			break
		}
	}
}

// dropOldestLocked forgets the oldest task other than keep: with
// terminalFirst, the oldest evictable terminal task if there is one, else
// the oldest running task. It reports false when there is none.
func (a *agent) dropOldestLocked(keep *taskEntry, terminalFirst bool, why string) bool {
	victim := -1
	if terminalFirst {
		for i, e := range a.order {
			if e != keep && e.evictable() {
				victim = i
				break
			}
		}
	}
	if victim < 0 {
		for i, e := range a.order {
			if e != keep && !e.task.Status.State.Terminal() {
				victim = i
				break
			}
		}
	}
	if victim < 0 {
		return false
	}
	e := a.order[victim]
	if !e.task.Status.State.Terminal() {
		a.stopPlayerLocked(e)
		e.gen++ // a player whose timer already fired must not apply its step
		a.closeSubsLocked(e)
		a.running--
		a.srv.record(Entry{Agent: a.name, Kind: EntryDropped, TaskID: e.task.ID, ContextID: e.task.ContextID,
			State: e.task.Status.State, Detail: why})
	}
	a.forgetLocked(victim)
	return true
}

// forgetLocked removes a.order[i] from the store.
func (a *agent) forgetLocked(i int) {
	e := a.order[i]
	delete(a.tasks, e.task.ID)
	a.bytes -= e.bytes
	copy(a.order[i:], a.order[i+1:])
	a.order[len(a.order)-1] = nil
	a.order = a.order[:len(a.order)-1]
}

// taskBytes estimates the memory a task's content holds: its ids, the text,
// raw bytes, URLs and data of every part of its history, status message and
// artifacts, and metadata.
func taskBytes(t *wire.Task) int64 {
	n := int64(len(t.ID) + len(t.ContextID))
	for i := range t.History {
		n += messageBytes(&t.History[i])
	}
	if t.Status.Message != nil {
		n += messageBytes(t.Status.Message)
	}
	for i := range t.Artifacts {
		art := &t.Artifacts[i]
		n += int64(len(art.ArtifactID)+len(art.Name)+len(art.Description)) + partsBytes(art.Parts) + valueBytes(art.Metadata)
	}
	return n + valueBytes(t.Metadata)
}

func messageBytes(m *wire.Message) int64 {
	n := int64(len(m.MessageID)+len(m.ContextID)+len(m.TaskID)) + partsBytes(m.Parts) + valueBytes(m.Metadata)
	for _, s := range m.ReferenceTaskIDs {
		n += int64(len(s))
	}
	return n
}

func partsBytes(ps []wire.Part) int64 {
	var n int64
	for i := range ps {
		p := &ps[i]
		n += int64(len(p.Text)+len(p.Raw)+len(p.URL)+len(p.MediaType)+len(p.Filename)) + valueBytes(p.Data) + valueBytes(p.Metadata)
	}
	return n
}

// valueBytes estimates a decoded JSON value: its strings and 8 bytes per
// other scalar.
func valueBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x))
	case map[string]any:
		var n int64
		for k, e := range x {
			n += int64(len(k)) + valueBytes(e)
		}
		return n
	case []any:
		var n int64
		for _, e := range x {
			n += valueBytes(e)
		}
		return n
	}
	return 8
}
