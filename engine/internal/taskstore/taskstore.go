// Package taskstore holds an agent's tasks in creation order, with the
// bounds that keep its memory in check: retention of terminal tasks by
// count (with a bounded look-ahead and amortised sweeps), running tasks by
// count, and content by bytes, never dropping the task the current send
// created or continued.
//
// It is generic over the engine's task entry, which it reads through Entry;
// it does no locking (the engine's Agent.mu guards it) and knows nothing
// of players, subscribers or pushes beyond what Entry says.
package taskstore

import (
	"strconv"
	"time"

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

// Entry is a stored task and everything live about it, as the store
// reads it.
type Entry interface {
	comparable
	// Task is the stored task.
	Task() *wire.Task
	// Evictable says a terminal task with no open stream may be forgotten.
	Evictable() bool
	// Size and SetSize are the task's content size as last counted.
	Size() int64
	SetSize(n int64)
	// SetSeq numbers the entry in creation order.
	SetSeq(n uint64)
	// Stop stops a running task the store drops: its player stops, a
	// stale step of it is ignored, its streams end.
	Stop()
}

// Limits are the store's bounds (the engine's Limits).
type Limits struct {
	TaskRetention      int
	MaxRunningTasks    int
	TaskRetentionBytes int64
}

// Dropped is a running task the store dropped, with why.
type Dropped struct {
	Task *wire.Task
	Why  string
}

// Store holds an agent's tasks in creation order.
type Store[E Entry] struct {
	// Tasks finds a task by id; Order lists them, oldest first.
	Tasks map[string]E
	Order []E
	// created numbers tasks in creation order; ListTasks breaks ties on
	// it.
	created uint64
	// sinceSweep counts sends since Evict last swept the whole store.
	sinceSweep int
	// running counts the tasks not in a terminal state, and bytes the
	// content the stored tasks hold.
	running int
	bytes   int64
	// Forgotten, when set, is called with each task the store forgets
	// (evicted or dropped; not on Reset), once it has left Tasks.
	Forgotten func(E)
}

// Reset forgets every task; Forgotten is kept.
func (s *Store[E]) Reset() { *s = Store[E]{Tasks: map[string]E{}, Forgotten: s.Forgotten} }

// Named returns the task a message names by id, if the store holds it; a
// message naming none (the id "", a new task's) costs no probe of a map
// the size of the retention.
func (s *Store[E]) Named(id string) (E, bool) {
	if id == "" {
		var none E
		return none, false
	}
	e, ok := s.Tasks[id]
	return e, ok
}

// Add stores a new running task as the newest.
func (s *Store[E]) Add(e E) {
	s.created++
	e.SetSeq(s.created)
	s.Tasks[e.Task().ID] = e
	s.Order = append(s.Order, e)
	s.running++
}

// Evict forgets the oldest terminal tasks beyond limit. Tasks are kept in
// creation order, so the oldest sit at the front: the common case drops one
// from the front, and a still-running task at the front is skipped by a
// bounded look-ahead, so a send never pays for the number of tasks. When the
// look-ahead finds only running tasks, a full sweep runs, but at most once
// every limit/4 sends, which keeps the stored terminal tasks within 1.25 ×
// the retention at a constant amortised cost.
func (s *Store[E]) Evict(limit int) {
	for len(s.Order) > limit {
		evicted := false
		for i := 0; i < len(s.Order) && i < evictLookAhead; i++ {
			if s.Order[i].Evictable() {
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
func (s *Store[E]) sweep(limit int) {
	s.sinceSweep++
	if s.sinceSweep < max(limit/4, 1) {
		return
	}
	s.sinceSweep = 0
	excess := len(s.Order) - limit
	kept := s.Order[:0]
	for _, e := range s.Order {
		if excess > 0 && e.Evictable() {
			delete(s.Tasks, e.Task().ID)
			s.bytes -= e.Size()
			excess--
			s.forgotten(e)
			continue
		}
		kept = append(kept, e)
	}
	clear(s.Order[len(kept):])
	s.Order = kept
}

// evictLookAhead bounds the search for an evictable task past running ones.
const evictLookAhead = 64

// NoteState keeps the count of running tasks as a task's state changes.
func (s *Store[E]) NoteState(from, to wire.TaskState) {
	switch {
	case from.Terminal() && !to.Terminal():
		s.running++
	case !from.Terminal() && to.Terminal():
		s.running--
	}
}

// Resize sets the content size of e to n and keeps the store's total.
func (s *Store[E]) Resize(e E, n int64) {
	s.bytes += n - e.Size()
	e.SetSize(n)
}

// Bound enforces MaxRunningTasks and TaskRetentionBytes after a send
// created or continued keep; it returns the running tasks it dropped.
func (s *Store[E]) Bound(keep E, lim Limits) []Dropped {
	var notes []Dropped
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
func (s *Store[E]) dropOldest(keep E, terminalFirst bool, why string) ([]Dropped, bool) {
	victim := -1
	if terminalFirst {
		for i, e := range s.Order {
			if e != keep && e.Evictable() {
				victim = i
				break
			}
		}
	}
	if victim < 0 {
		for i, e := range s.Order {
			if e != keep && !e.Task().Status.State.Terminal() {
				victim = i
				break
			}
		}
	}
	if victim < 0 {
		return nil, false
	}
	e := s.Order[victim]
	var notes []Dropped
	if !e.Task().Status.State.Terminal() {
		e.Stop()
		s.running--
		notes = append(notes, Dropped{Task: e.Task(), Why: why})
	}
	s.forget(victim)
	return notes, true
}

func (s *Store[E]) forgotten(e E) {
	if s.Forgotten != nil {
		s.Forgotten(e)
	}
}

// forget removes s.Order[i] from the store.
func (s *Store[E]) forget(i int) {
	e := s.Order[i]
	delete(s.Tasks, e.Task().ID)
	s.bytes -= e.Size()
	s.forgotten(e)
	var none E
	if i == 0 {
		// The common case (the oldest task goes): drop it from the front
		// rather than move every other entry down, which at the default
		// retention was 10,000 pointer writes per send. append reallocates
		// the array when it fills, leaving the dropped front behind.
		s.Order[0] = none
		s.Order = s.Order[1:]
		return
	}
	copy(s.Order[i:], s.Order[i+1:])
	s.Order[len(s.Order)-1] = none
	s.Order = s.Order[:len(s.Order)-1]
}

// Matching lists the stored tasks a ListTasks query's filters select, in
// creation order: its contextId and status state when given, and a
// status time at or after statusTimestampAfter, compared as the wire shows
// it (to the millisecond, the proto's rule), so a client passing back a
// task's timestamp gets that task.
func (s *Store[E]) Matching(q wire.ListTasksQuery) []E {
	var out []E
	for _, e := range s.Order {
		t := e.Task()
		if q.ContextID != "" && t.ContextID != q.ContextID || q.State != "" && t.Status.State != q.State {
			continue
		}
		if !q.StatusTimestampAfter.IsZero() && t.Status.Timestamp.Truncate(time.Millisecond).Before(q.StatusTimestampAfter) {
			continue
		}
		out = append(out, e)
	}
	return out
}
