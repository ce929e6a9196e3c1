package lifecycle

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var statusForOtherTaskSpec = core.Spec{
	Name: "status-for-other-task",
	Doc: `Reproduces agents (and multiplexing proxies) that put a status update for
another task on a task's stream: after working, an event announces a state
(completed by default) under the id of the previous task this behavior saw,
a freshly minted id, or a given id. The task itself is untouched. Tests that
a client keys every event by its taskId and never applies a foreign event to
its own task.`,
	New: func() core.Behavior { return &StatusForOtherTask{Task: "previous", State: wire.StateCompleted} },
}

// StatusForOtherTask injects an event that carries another task's id. It
// tests that clients check the taskId of every event they apply.
type StatusForOtherTask struct {
	// Task chooses the foreign id: previous, minted or a literal id.
	Task string `param:"task" doc:"whose id the stray event carries: previous (the last other task this behavior saw, else a minted id), minted (a fresh seeded id) or a literal task id"`
	// State is the state the stray event announces.
	State wire.TaskState `param:"state" doc:"state the stray event announces"`

	mu   sync.Mutex
	last string
}

// Validate implements Validator.
func (b *StatusForOtherTask) Validate() error {
	if b.Task == "" {
		return fmt.Errorf("task must be previous, minted or a task id")
	}
	if !b.State.Valid() || b.State == wire.StateUnknown {
		return fmt.Errorf("state %q is not a task state (one of %v)", b.State, wire.AllStates)
	}
	return nil
}

// Reset implements Resetter: the previous task is forgotten.
func (b *StatusForOtherTask) Reset() {
	b.mu.Lock()
	b.last = ""
	b.mu.Unlock()
}

func (b *StatusForOtherTask) remember(id string) {
	if id == "" {
		return
	}
	b.mu.Lock()
	b.last = id
	b.mu.Unlock()
}

// Apply implements Behavior.
func (b *StatusForOtherTask) Apply(x *core.Exchange) {
	own := ""
	if x.Request != nil && x.Request.Message != nil {
		own = x.Request.Message.TaskID
	}
	other := b.Task
	switch b.Task {
	case "previous":
		b.mu.Lock()
		other = b.last
		b.mu.Unlock()
		if other == "" || other == own {
			other = randomTaskID(x.Rand)
		}
	case "minted":
		other = randomTaskID(x.Rand)
	}
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		if len(tl) == 0 {
			return tl
		}
		at := 1
		if cut, ok := cutAfterState(tl, wire.StateWorking); ok {
			at = len(cut)
		}
		out := tl[:at:at].Clone()
		out = append(out, timeline.Step{Kind: timeline.StepState, State: b.State, TaskID: other, EventOnly: true})
		return append(out, tl[at:]...)
	})
	x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
		if res != nil && res.Task != nil && x.Op == wire.OpSend {
			b.remember(res.Task.ID)
		}
		return res, err
	})
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if ev.Task != nil {
			b.remember(ev.Task.ID)
		}
		return emit(ev)
	})
}

// randomTaskID returns a UUID-shaped id drawn from r, so minted ids are
// repeatable from the run's seed.
func randomTaskID(r *rand.Rand) string {
	if r == nil {
		r = rand.New(rand.NewPCG(0, 0))
	}
	hi, lo := r.Uint64(), r.Uint64()
	hi = hi&^0xf000 | 0x4000
	lo = lo&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}
