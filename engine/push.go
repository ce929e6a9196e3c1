package engine

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/engine/internal/pages"
	"github.com/a2amock/a2amock/engine/internal/pushqueue"
	"github.com/a2amock/a2amock/wire"
)

// The push queue of each task is package pushqueue's; the engine builds
// the notification of an event under Agent.mu and queues it after.

// PushJob is one notification to deliver to one webhook.
type PushJob = pushqueue.Job

// Deliverer delivers push notifications: package server POSTs them. Deliver
// is called from the task's drain goroutine, never with an engine lock held;
// it returns once the delivery (retries included) is over.
type Deliverer = pushqueue.Deliverer

// pushItem is a notification of a task, to be queued once Agent.mu is
// released.
type pushItem struct {
	q       *pushqueue.Queue
	cfgs    []wire.PushConfig
	dialect wire.Dialect
	ev      wire.Event
}

// initPush keeps the push hooks of the request that created e. Without
// hooks the queue is made when the first notification is (pushItemLocked):
// most tasks never have a push config.
func (e *taskEntry) initPush(x *core.Exchange) {
	var h *core.PushHooks
	if x != nil {
		h = &x.Hooks().Push
	}
	if h.Empty() {
		return
	}
	e.pushState = pushqueue.New(h)
}

// pushItemLocked returns the notification of an event of e, or nil when e
// has no push config.
func (a *Agent) pushItemLocked(e *taskEntry, ev wire.Event) *pushItem {
	if len(e.push) == 0 {
		return nil
	}
	if e.pushState == nil {
		e.pushState = pushqueue.New(nil)
	}
	payload := ev
	if wire.Describe(e.dialect).PushSendsTask && ev.TaskID() == e.task.ID {
		// v0.x webhooks receive the Task object, as the docs and SDKs
		// send it; the store already holds the change.
		payload = wire.Event{Task: e.task.Clone()}
	}
	return &pushItem{q: e.pushState, cfgs: slices.Clone(e.push), dialect: e.dialect, ev: payload}
}

// push queues a notification on its task's queue.
func (a *Agent) push(it *pushItem) { it.q.Push(&a.pushHost, it.cfgs, it.dialect, it.ev) }

// waitFirstPush waits until task id's first push delivery was tried, for
// push-before-response; it is bounded by Config.FirstPushBound. The bound
// is wall time on purpose: it guards against a webhook that hangs on the
// network, which no test clock moves, so a send on a fake clock cannot
// wait for ever behind it.
func (a *Agent) waitFirstPush(ctx context.Context, id string) {
	a.mu.Lock()
	e, ok := a.store.Tasks[id]
	if !ok || e.pushState == nil || len(e.push) == 0 {
		a.mu.Unlock()
		return
	}
	done := e.pushState.FirstDone()
	a.mu.Unlock()
	t := time.NewTimer(a.cfg.FirstPushBound)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	case <-a.cfg.HostContext.Done():
	}
}

// newPushIDLocked numbers a push config that came without an id.
func (a *Agent) newPushIDLocked() string {
	a.pushSeq++
	return "push-" + strconv.Itoa(a.pushSeq)
}

// SetPush stores a push config of an existing task (replacing the one with
// its id).
func (a *Agent) SetPush(pc wire.PushConfig) (*wire.PushConfig, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[pc.TaskID]
	if !ok {
		return nil, wire.ErrTaskNotFound(pc.TaskID)
	}
	if pc.ID == "" {
		pc.ID = a.newPushIDLocked()
	}
	for i := range e.push {
		if e.push[i].ID == pc.ID {
			e.push[i] = pc
			return &pc, nil
		}
	}
	if limit := a.cfg.Limits.MaxPushConfigs; len(e.push) >= limit {
		return nil, wire.ErrInvalidParams("pushNotificationConfig", "the task already has "+strconv.Itoa(limit)+" push configs, the most a task may hold; delete one or replace one by its id")
	}
	e.push = append(e.push, pc)
	return &pc, nil
}

// PushConfigs lists the push configs of a task, the page q asks for
// (pages.PushConfigs; all of them for a zero q), and the next page's token.
func (a *Agent) PushConfigs(taskID string, q wire.ListTasksQuery) ([]wire.PushConfig, string, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[taskID]
	if !ok {
		return nil, "", wire.ErrTaskNotFound(taskID)
	}
	return pages.PushConfigs(taskID, slices.Clone(e.push), q)
}

// GetPush returns one push config of a task ("" the first).
func (a *Agent) GetPush(taskID, id string) (*wire.PushConfig, *wire.Error) {
	pcs, _, err := a.PushConfigs(taskID, wire.ListTasksQuery{})
	if err != nil {
		return nil, err
	}
	for _, pc := range pcs {
		if id == "" || pc.ID == id {
			return &pc, nil
		}
	}
	// Spec §3.1.8: a config that does not exist is TaskNotFoundError.
	return nil, wire.Errorf(wire.CodeTaskNotFound, "task %s has no push notification config %q", taskID, id).With("taskId", taskID).With("configId", id)
}

// DeletePush deletes a push config of a task; an unknown config id is not
// an error.
func (a *Agent) DeletePush(taskID, id string) *wire.Error {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[taskID]
	if !ok {
		return wire.ErrTaskNotFound(taskID)
	}
	e.push = slices.DeleteFunc(e.push, func(pc wire.PushConfig) bool { return pc.ID == id })
	return nil
}
