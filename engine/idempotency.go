package engine

import (
	"context"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// The honest agent treats messageId as an idempotency key (the spec leans
// that way: A2A#928, #1893, #1987). A message whose messageId already
// started or continued a task, sent again without a taskId or with that
// task's id, is a retry: it is answered with that task as it stands now
// (a unary send waits for it to settle as the first send did; a stream
// re-attaches to it like SubscribeToTask), and nothing is created or
// played again. The same messageId naming another task is a new message.
// The behavior duplicate-on-retry turns this off.

// rememberMessageLocked records that message id went to task.
func (a *Agent) rememberMessageLocked(id, task string) {
	if id != "" {
		a.seenMsg[id] = task
	}
	// The store's hook forgets a task's ids with it; a sweep backs it up
	// (an id whose message left its task's history would stay), run when
	// the map has doubled since the last, so it costs O(1) a send.
	if len(a.seenMsg) > 2*a.seenAfterSweep+1024 {
		for mid, tid := range a.seenMsg {
			if a.store.Tasks[tid] == nil {
				delete(a.seenMsg, mid)
			}
		}
		a.seenAfterSweep = len(a.seenMsg)
	}
}

// forgetMessagesLocked forgets the messages that went to e as the store
// forgets it (taskstore.Store.Forgotten), which keeps seenMsg within the
// store's bounds: each one is in e's history. (A sweep of the whole map
// every thousand sends, finding the messages of tasks gone, cost a send
// about two lookups in a map twice the retention.)
func (a *Agent) forgetMessagesLocked(e *taskEntry) {
	for i := range e.task.History {
		if id := e.task.History[i].MessageID; a.seenMsg[id] == e.task.ID {
			delete(a.seenMsg, id)
		}
	}
}

// duplicateLocked reports whether m repeats a message the agent took, and
// the decision answering it.
func (a *Agent) duplicateLocked(m *wire.Message) (timeline.Decision, bool) {
	if m == nil || m.MessageID == "" {
		return timeline.Decision{}, false
	}
	tid, ok := a.seenMsg[m.MessageID]
	if !ok || (m.TaskID != "" && m.TaskID != tid) {
		return timeline.Decision{}, false
	}
	e, ok := a.store.Tasks[tid]
	if !ok {
		return timeline.Decision{}, false
	}
	return timeline.Decision{Kind: timeline.DecideDuplicate, TaskID: tid, ContextID: e.task.ContextID,
		Reason: "messageId " + m.MessageID + " already went to task " + tid + ": answered with that task"}, true
}

// answerDuplicate answers a resent unary send with the task its first
// sending went to, waiting for it to settle unless the client asked to
// return immediately.
func (a *Agent) answerDuplicate(ctx context.Context, req *wire.Request, id string) (*wire.Result, *wire.Error) {
	sub := NewWaiter()
	if _, _, e := a.Subscribe(id, sub); e != nil {
		return nil, e
	}
	defer a.Unsubscribe(id, sub)
	if !req.Config.ReturnImmediately {
		a.waitSettled(ctx, id, sub, -1)
	}
	t, e := a.TaskSnapshot(id, req.Config.HistoryLength)
	if e != nil {
		return nil, e
	}
	return &wire.Result{Task: t}, nil
}
