package engine

import (
	"context"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine/internal/pushqueue"
	"github.com/a2amock/a2amock/engine/internal/subset"
	"github.com/a2amock/a2amock/engine/internal/taskstore"
	"github.com/a2amock/a2amock/engine/size"
	"github.com/a2amock/a2amock/wire"
)

// The store (package taskstore) holds an agent's tasks in creation order,
// within the bounds of Limits. Guarded by Agent.mu.
type store = taskstore.Store[*taskEntry]

// taskEntry is a task and everything live about it. Guarded by Agent.mu.
type taskEntry struct {
	seq     uint64
	task    *wire.Task
	skill   *cards.Skill
	created time.Time
	subs    subset.Set[*Subscriber]
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
	pushState *pushqueue.Queue
	// bytes is the task's content size as last counted.
	bytes int64
	// moves counts the status changes applied to the task, so a blocking
	// send can tell a state reached after its message from the one the
	// task was in when the message came.
	moves int64
	// own holds a new task and its first message: the entry, the task
	// and its history in one allocation (newTaskLocked).
	own struct {
		task    wire.Task
		history [1]wire.Message
	}
}

// The taskEntry as the store reads it (taskstore.Entry).

func (e *taskEntry) Task() *wire.Task { return e.task }
func (e *taskEntry) Evictable() bool  { return e.task.Status.State.Terminal() && e.subs.Len() == 0 }
func (e *taskEntry) Size() int64      { return e.bytes }
func (e *taskEntry) SetSize(n int64)  { e.bytes = n }
func (e *taskEntry) SetSeq(n uint64)  { e.seq = n }

// Stop stops a running task the store drops: its player stops, a player
// whose timer already fired must not apply its step, its streams end.
func (e *taskEntry) Stop() {
	e.stopPlayer()
	e.gen++
	e.closeSubs()
}

// resize recomputes the content size of e and the store's total.
func (a *Agent) resize(e *taskEntry) { a.store.Resize(e, size.Task(e.task)) }
