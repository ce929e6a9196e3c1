// Package pushqueue is the push queue of one task. Every event of a task
// with push configs is queued, with the configs the task held then, in the
// order the player emitted it; one drain goroutine per task runs the push
// behaviors' filters on each queued notification (without any lock held)
// and hands what they pass on to the Deliverer, once per config. A slow or
// hung webhook holds back only its own task's later notifications.
//
// # Lock discipline
//
// A Queue's own mutex guards its queue, whether its drain goroutine runs
// and whether the first delivery was tried; it is a leaf lock, never held
// while filters run or a notification is delivered. The filter chain and
// the notification being filtered belong to the drain goroutine alone.
package pushqueue

import (
	"context"
	"sync"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

// Job is one notification to deliver to one webhook.
type Job struct {
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

// Deliverer delivers one notification to one webhook; it returns once the
// delivery (retries included) is over.
type Deliverer interface {
	Deliver(agent string, job Job)
}

// Host is what the queues of one agent share.
type Host struct {
	// Agent names the agent to the Deliverer, which may be nil (the
	// notifications are then dropped).
	Agent     string
	Deliverer Deliverer
	// Players counts the drain goroutines; none starts once Context has
	// ended.
	Players *sync.WaitGroup
	Context context.Context
}

// Queue is the push queue of one task.
type Queue struct {
	mu      sync.Mutex
	hooks   *core.PushHooks
	deliver core.PushDeliver
	queue   []item
	running bool
	// firstDone is closed when the task's first delivery has been tried.
	firstDone chan struct{}
	firstSeen bool
	// cur is the notification the filters are looking at: what they pass
	// on goes to its configs. Only the drain goroutine uses it.
	cur item
}

// item is a queued notification with the configs to deliver it to.
type item struct {
	cfgs    []wire.PushConfig
	dialect wire.Dialect
	ev      wire.Event
}

// New is the queue of a task created by a request whose push behaviors'
// hooks are h (nil or empty: none).
func New(h *core.PushHooks) *Queue {
	q := &Queue{firstDone: make(chan struct{})}
	if h != nil && !h.Empty() {
		hooks := *h
		q.hooks = &hooks
	}
	return q
}

// Push queues the notification ev for cfgs, rendered in dialect d, and
// starts the queue's drain goroutine when none runs.
func (q *Queue) Push(h *Host, cfgs []wire.PushConfig, d wire.Dialect, ev wire.Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, item{cfgs: cfgs, dialect: d, ev: ev})
	if q.running || h.Context.Err() != nil {
		return
	}
	q.running = true
	h.Players.Add(1)
	go q.drain(h)
}

// FirstDone is closed once the task's first delivery has been tried.
func (q *Queue) FirstDone() <-chan struct{} { return q.firstDone }

func (q *Queue) drain(h *Host) {
	defer h.Players.Done()
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		it := q.queue[0]
		q.queue[0] = item{}
		q.queue = q.queue[1:]
		q.mu.Unlock()
		// The filters see the notifications one at a time, in order, in
		// this goroutine only.
		if q.deliver == nil {
			q.deliver = q.hooks.Chain(func(ev wire.Event, opts core.PushOptions) {
				for _, pc := range q.cur.cfgs {
					q.deliverOne(h, Job{Config: pc, Dialect: q.cur.dialect, Event: ev, Options: opts})
				}
			})
		}
		q.cur = it
		q.deliver(it.ev, core.PushOptions{})
	}
}

// deliverOne hands one job to the Deliverer and notes the task's first
// delivery.
func (q *Queue) deliverOne(h *Host, job Job) {
	if h.Deliverer != nil {
		h.Deliverer.Deliver(h.Agent, job)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.firstSeen {
		q.firstSeen = true
		close(q.firstDone)
	}
}
