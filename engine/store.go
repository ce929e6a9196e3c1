package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

// The store's bounds, per agent (Limits):
//
//   - TaskRetention: terminal tasks beyond it are forgotten, oldest first
//     (evict).
//   - MaxRunningTasks: a new task past it makes the store drop the oldest
//     running task (its player stops, its streams end, NoteDropped is
//     journaled). Behaviors that never finish a task (never-terminal,
//     stuck-submitted) keep doing so; only the memory is bounded.
//   - TaskRetentionBytes: when the tasks' content (message and artifact
//     parts, metadata, ids) passes it, the oldest terminal tasks are
//     forgotten, then the oldest running ones are dropped, until it fits.
//
// The task the current send created or continued is never dropped.

// store holds an agent's tasks in creation order. Guarded by Agent.mu.
type store struct {
	tasks map[string]*taskEntry
	order []*taskEntry // creation order, oldest first
	// created numbers tasks in creation order; ListTasks breaks ties on
	// it.
	created uint64
	// sinceSweep counts sends since evict last swept the whole store.
	sinceSweep int
	// running counts the tasks not in a terminal state, and bytes the
	// content the stored tasks hold.
	running int
	bytes   int64
}

// taskEntry is a task and everything live about it. Guarded by Agent.mu.
type taskEntry struct {
	seq     uint64
	task    *wire.Task
	skill   *cards.Skill
	created time.Time
	subs    map[*Subscriber]struct{}
	// gen changes whenever the task's player is replaced or stopped, so a
	// stale player's steps are ignored.
	gen        int
	cancelPlay context.CancelFunc
	playing    bool
	holdOpen   bool
	push       []wire.PushConfig
	// dialect is the dialect the task was created in.
	dialect wire.Dialect
	// pushState queues the task's push notifications (push.go).
	pushState *taskPush
	// bytes is the task's content size as last counted.
	bytes int64
	// moves counts the status changes applied to the task, so a blocking
	// send can tell a state reached after its message from the one the
	// task was in when the message came.
	moves int64
}

func (s *store) reset() { *s = store{tasks: map[string]*taskEntry{}} }

// add stores a new running task as the newest.
func (s *store) add(e *taskEntry) {
	s.created++
	e.seq = s.created
	s.tasks[e.task.ID] = e
	s.order = append(s.order, e)
	s.running++
}

// evict forgets the oldest terminal tasks beyond limit. Tasks are kept in
// creation order, so the oldest sit at the front: the common case drops one
// from the front, and a still-running task at the front is skipped by a
// bounded look-ahead, so a send never pays for the number of tasks. When the
// look-ahead finds only running tasks, a full sweep runs, but at most once
// every limit/4 sends, which keeps the stored terminal tasks within 1.25 ×
// the retention at a constant amortised cost.
func (s *store) evict(limit int) {
	for len(s.order) > limit {
		evicted := false
		for i := 0; i < len(s.order) && i < evictLookAhead; i++ {
			if s.order[i].evictable() {
				s.forget(i)
				evicted = true
				break
			}
		}
		if !evicted {
			s.sweep(limit)
			return
		}
	}
}

// sweep forgets the oldest evictable tasks anywhere in the store until it
// is within limit, unless it swept less than limit/4 sends ago.
func (s *store) sweep(limit int) {
	s.sinceSweep++
	if s.sinceSweep < max(limit/4, 1) {
		return
	}
	s.sinceSweep = 0
	excess := len(s.order) - limit
	kept := s.order[:0]
	for _, e := range s.order {
		if excess > 0 && e.evictable() {
			delete(s.tasks, e.task.ID)
			s.bytes -= e.bytes
			excess--
			continue
		}
		kept = append(kept, e)
	}
	clear(s.order[len(kept):])
	s.order = kept
}

func (e *taskEntry) evictable() bool { return e.task.Status.State.Terminal() && len(e.subs) == 0 }

// evictLookAhead bounds the search for an evictable task past running ones.
const evictLookAhead = 64

// noteState keeps the count of running tasks as a task's state changes.
func (s *store) noteState(from, to wire.TaskState) {
	switch {
	case from.Terminal() && !to.Terminal():
		s.running++
	case !from.Terminal() && to.Terminal():
		s.running--
	}
}

// resize recomputes the content size of e and the store's total.
func (s *store) resize(e *taskEntry) {
	n := TaskBytes(e.task)
	s.bytes += n - e.bytes
	e.bytes = n
}

// bound enforces MaxRunningTasks and TaskRetentionBytes after a send
// created or continued keep; it returns the notes of the running tasks it
// dropped.
func (s *store) bound(keep *taskEntry, lim Limits) []Note {
	var notes []Note
	for s.running > lim.MaxRunningTasks {
		n, ok := s.dropOldest(keep, false, "the agent has more than "+strconv.Itoa(lim.MaxRunningTasks)+" running tasks (MaxRunningTasks): the oldest running task is dropped")
		if !ok {
			break
		}
		notes = append(notes, n...)
	}
	for s.bytes > lim.TaskRetentionBytes {
		n, ok := s.dropOldest(keep, true, "the agent's tasks hold more than "+strconv.FormatInt(lim.TaskRetentionBytes, 10)+" bytes (TaskRetentionBytes): the oldest running task is dropped")
		if !ok {
			break
		}
		notes = append(notes, n...)
	}
	return notes
}

// dropOldest forgets the oldest task other than keep: with terminalFirst,
// the oldest evictable terminal task if there is one, else the oldest
// running task. It reports false when there is none.
func (s *store) dropOldest(keep *taskEntry, terminalFirst bool, why string) ([]Note, bool) {
	victim := -1
	if terminalFirst {
		for i, e := range s.order {
			if e != keep && e.evictable() {
				victim = i
				break
			}
		}
	}
	if victim < 0 {
		for i, e := range s.order {
			if e != keep && !e.task.Status.State.Terminal() {
				victim = i
				break
			}
		}
	}
	if victim < 0 {
		return nil, false
	}
	e := s.order[victim]
	var notes []Note
	if !e.task.Status.State.Terminal() {
		e.stopPlayer()
		e.gen++ // a player whose timer already fired must not apply its step
		e.closeSubs()
		s.running--
		notes = append(notes, Note{Kind: NoteDropped, TaskID: e.task.ID, ContextID: e.task.ContextID,
			State: e.task.Status.State, Detail: why})
	}
	s.forget(victim)
	return notes, true
}

// forget removes s.order[i] from the store.
func (s *store) forget(i int) {
	e := s.order[i]
	delete(s.tasks, e.task.ID)
	s.bytes -= e.bytes
	copy(s.order[i:], s.order[i+1:])
	s.order[len(s.order)-1] = nil
	s.order = s.order[:len(s.order)-1]
}

// TaskBytes estimates the memory a task's content holds: its ids, the text,
// raw bytes, URLs and data of every part of its history, status message and
// artifacts, and metadata.
func TaskBytes(t *wire.Task) int64 {
	n := int64(len(t.ID) + len(t.ContextID))
	for i := range t.History {
		n += messageBytes(&t.History[i])
	}
	if t.Status.Message != nil {
		n += messageBytes(t.Status.Message)
	}
	for i := range t.Artifacts {
		art := &t.Artifacts[i]
		n += int64(len(art.ArtifactID)+len(art.Name)+len(art.Description)) + PartsBytes(art.Parts) + ValueBytes(art.Metadata)
	}
	return n + ValueBytes(t.Metadata)
}

func messageBytes(m *wire.Message) int64 {
	n := int64(len(m.MessageID)+len(m.ContextID)+len(m.TaskID)) + PartsBytes(m.Parts) + ValueBytes(m.Metadata)
	for _, s := range m.ReferenceTaskIDs {
		n += int64(len(s))
	}
	return n
}

// PartsBytes estimates the memory parts hold (TaskBytes).
func PartsBytes(ps []wire.Part) int64 {
	var n int64
	for i := range ps {
		p := &ps[i]
		n += int64(len(p.Text)+len(p.Raw)+len(p.URL)+len(p.MediaType)+len(p.Filename)) + ValueBytes(p.Data) + ValueBytes(p.Metadata)
	}
	return n
}

// ValueBytes estimates a decoded JSON value: its strings and 8 bytes per
// other scalar.
func ValueBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x))
	case map[string]any:
		var n int64
		for k, e := range x {
			n += int64(len(k)) + ValueBytes(e)
		}
		return n
	case []any:
		var n int64
		for _, e := range x {
			n += ValueBytes(e)
		}
		return n
	}
	return 8
}
