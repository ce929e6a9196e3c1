package lifecycle

import (
	"errors"
	"sync"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var forgetTaskSpec = core.Spec{
	Name: "forget-task",
	Doc: `Reproduces agents that lose tasks: an in-memory store that expires or a
restarted replica. Once ttl has passed since the task was created (as this
behavior saw it; otherwise since its last status change), GetTask, CancelTask,
SubscribeToTask, push-config calls and continuations answer
TaskNotFoundError, and ListTasks leaves it out. Tests that a client handles a
task vanishing mid-conversation, distinguishes it from a typo in the id and
does not retry for ever.`,
	New: func() core.Behavior { return &ForgetTask{TTL: 30 * time.Second} },
}

// ForgetTask makes tasks disappear after a TTL. It tests the client's
// handling of TaskNotFoundError for a task it created.
type ForgetTask struct {
	// TTL is the age after which a task is forgotten.
	TTL time.Duration `param:"ttl" doc:"age after which a task is forgotten"`

	mu    sync.Mutex
	born  map[string]time.Time
	order []string
}

// forgetTaskMemory bounds the creation times kept, so a long run does not
// grow without limit.
const forgetTaskMemory = 10_000

// Validate implements Validator.
func (b *ForgetTask) Validate() error {
	if b.TTL <= 0 {
		return errors.New("ttl must be positive")
	}
	return nil
}

// Reset implements Resetter: remembered creation times are dropped.
func (b *ForgetTask) Reset() {
	b.mu.Lock()
	b.born, b.order = nil, nil
	b.mu.Unlock()
}

func (b *ForgetTask) remember(id string, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.born == nil {
		b.born = map[string]time.Time{}
	}
	if _, ok := b.born[id]; ok || id == "" {
		return
	}
	if len(b.order) >= forgetTaskMemory {
		delete(b.born, b.order[0])
		b.order = b.order[1:]
	}
	b.born[id] = at
	b.order = append(b.order, id)
}

// forgotten reports whether task id is past its TTL at now; status is the
// fallback creation time for tasks this behavior never saw created.
func (b *ForgetTask) forgotten(id string, status, now time.Time) bool {
	b.mu.Lock()
	born, ok := b.born[id]
	b.mu.Unlock()
	if !ok {
		born = status
	}
	return !born.IsZero() && now.Sub(born) >= b.TTL
}

// Apply implements Behavior.
func (b *ForgetTask) Apply(x *core.Exchange) {
	if x.Request == nil {
		return
	}
	switch x.Op {
	case wire.OpSend, wire.OpStream:
		x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
			if existing != nil && b.forgotten(existing.ID, existing.Status.Timestamp, x.Now) {
				*d = timeline.Decision{Kind: timeline.DecideReject, Err: wire.ErrTaskNotFound(existing.ID),
					Reason: "forget-task: task " + existing.ID + " outlived its ttl"}
			}
		})
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			if res != nil && res.Task != nil {
				b.remember(res.Task.ID, x.Now)
			}
			return res, err
		})
		x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
			if ev.Task != nil {
				b.remember(ev.Task.ID, x.Now)
			}
			return emit(ev)
		})
	case wire.OpGetTask:
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			if res != nil && res.Task != nil && b.forgotten(res.Task.ID, res.Task.Status.Timestamp, x.Now) {
				return nil, wire.ErrTaskNotFound(res.Task.ID)
			}
			return res, err
		})
	case wire.OpCancelTask:
		gone := false
		x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
			if existing != nil && b.forgotten(existing.ID, existing.Status.Timestamp, x.Now) {
				d.Kind, gone = timeline.DecideIgnore, true
			}
		})
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			if gone {
				return nil, wire.ErrTaskNotFound(x.Request.TaskID)
			}
			return res, err
		})
	case wire.OpListTasks:
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			if res == nil || res.Page == nil {
				return res, err
			}
			page := *res.Page
			page.Tasks = nil
			for _, t := range res.Page.Tasks {
				if b.forgotten(t.ID, t.Status.Timestamp, x.Now) {
					page.TotalSize--
					continue
				}
				page.Tasks = append(page.Tasks, t)
			}
			out := *res
			out.Page = &page
			return &out, err
		})
	default:
		// Streams and push configs have no task snapshot to date the task
		// by: only tasks whose creation this behavior saw are forgotten.
		id := x.Request.TaskID
		b.mu.Lock()
		born, ok := b.born[id]
		b.mu.Unlock()
		if ok && x.Now.Sub(born) >= b.TTL {
			x.RejectWith(wire.ErrTaskNotFound(id))
		}
	}
}
