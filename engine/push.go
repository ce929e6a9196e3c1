package engine

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

// The push queue. Every event of a task with push configs is queued, with
// the configs the task held then, in the order the player emitted it; one
// drain goroutine per task runs the push behaviors' filters on each queued
// notification (without any lock held) and hands what they pass on to the
// Deliverer, once per config. A slow or hung webhook holds back only its
// own task's later notifications.

// PushJob is one notification to deliver to one webhook.
type PushJob struct {
	// Config is the push config: URL, token, authentication.
	Config wire.PushConfig
	// Dialect is the dialect the task was created in: the notification is
	// rendered in it.
	Dialect wire.Dialect
	// Event is the notification (v0.x: a Task event).
	Event wire.Event
	// Options are the push behaviors' changes to its delivery.
	Options core.PushOptions
}

// Deliverer delivers push notifications: package server POSTs them. Deliver
// is called from the task's drain goroutine, never with an engine lock held;
// it returns once the delivery (retries included) is over.
type Deliverer interface {
	Deliver(agent string, job PushJob)
}

// taskPush is the push queue of one task. Its own mutex guards queue,
// running and firstSeen: queueing and draining never take Agent.mu, so a
// task's notifications contend with nothing but each other. hooks is set
// once when the task is created; deliver and cur belong to the drain
// goroutine alone.
type taskPush struct {
	mu      sync.Mutex
	hooks   *core.PushHooks
	deliver core.PushDeliver
	queue   []pushItem
	running bool
	// firstDone is closed when the task's first delivery has been tried.
	firstDone chan struct{}
	firstSeen bool
	// cur is the notification the filters are looking at: what they pass
	// on goes to its configs. Only the drain goroutine uses it.
	cur pushItem
}

// pushItem is a queued notification with the configs to deliver it to.
type pushItem struct {
	e       *taskEntry
	ps      *taskPush
	cfgs    []wire.PushConfig
	dialect wire.Dialect
	ev      wire.Event
}

// initPush keeps the push hooks of the request that created e.
func (e *taskEntry) initPush(x *core.Exchange) {
	ps := &taskPush{firstDone: make(chan struct{})}
	if x != nil && !x.Hooks().Push.Empty() {
		h := x.Hooks().Push
		ps.hooks = &h
	}
	e.pushState = ps
}

// pushItemLocked returns the notification of an event of e, or nil when e
// has no push config.
func (a *Agent) pushItemLocked(e *taskEntry, ev wire.Event) *pushItem {
	if len(e.push) == 0 {
		return nil
	}
	if e.pushState == nil {
		e.initPush(nil)
	}
	payload := ev
	if wire.Describe(e.dialect).PushSendsTask && ev.TaskID() == e.task.ID {
		// v0.x webhooks receive the Task object, as the docs and SDKs
		// send it; the store already holds the change.
		payload = wire.Event{Task: e.task.Clone()}
	}
	return &pushItem{e: e, ps: e.pushState, cfgs: slices.Clone(e.push), dialect: e.dialect, ev: payload}
}

// push queues a notification and starts the task's drain goroutine when
// none runs.
func (a *Agent) push(it *pushItem) {
	ps := it.ps
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.queue = append(ps.queue, *it)
	if ps.running || a.cfg.HostContext.Err() != nil {
		return
	}
	ps.running = true
	a.cfg.Players.Add(1)
	go a.drainPush(ps)
}

func (a *Agent) drainPush(ps *taskPush) {
	defer a.cfg.Players.Done()
	for {
		ps.mu.Lock()
		if len(ps.queue) == 0 {
			ps.running = false
			ps.mu.Unlock()
			return
		}
		it := ps.queue[0]
		ps.queue[0] = pushItem{}
		ps.queue = ps.queue[1:]
		ps.mu.Unlock()
		// The filters see the notifications one at a time, in order, in
		// this goroutine only.
		if ps.deliver == nil {
			ps.deliver = ps.hooks.Chain(func(ev wire.Event, opts core.PushOptions) {
				for _, pc := range ps.cur.cfgs {
					a.deliver(ps, PushJob{Config: pc, Dialect: ps.cur.dialect, Event: ev, Options: opts})
				}
			})
		}
		ps.cur = it
		ps.deliver(it.ev, core.PushOptions{})
	}
}

// deliver hands one job to the Deliverer and notes the task's first
// delivery.
func (a *Agent) deliver(ps *taskPush, job PushJob) {
	if a.cfg.Deliverer != nil {
		a.cfg.Deliverer.Deliver(a.cfg.Name, job)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.firstSeen {
		ps.firstSeen = true
		close(ps.firstDone)
	}
}

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
	done := e.pushState.firstDone
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

// PushConfigs lists the push configs of a task.
func (a *Agent) PushConfigs(taskID string) ([]wire.PushConfig, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[taskID]
	if !ok {
		return nil, wire.ErrTaskNotFound(taskID)
	}
	return slices.Clone(e.push), nil
}

// GetPush returns one push config of a task ("" the first).
func (a *Agent) GetPush(taskID, id string) (*wire.PushConfig, *wire.Error) {
	pcs, err := a.PushConfigs(taskID)
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
