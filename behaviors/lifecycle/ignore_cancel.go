package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var ignoreCancelSpec = core.Spec{
	Name: "ignore-cancel",
	Doc: `Reproduces agents that acknowledge CancelTask with a task in state
canceled but never stop the work: the task keeps working (and may still
complete), as GetTask and open streams show. With terminal=true a cancel of a
finished task is acknowledged too instead of TaskNotCancelableError. Tests
that a client confirms a cancel by observing the task's state afterwards
rather than trusting the acknowledgement.`,
	New: func() core.Behavior { return &IgnoreCancel{} },
}

// IgnoreCancel acknowledges cancels without acting on them. It tests that
// clients verify cancellation.
type IgnoreCancel struct {
	// Terminal also acknowledges cancels of terminal tasks.
	Terminal bool `param:"terminal" doc:"also acknowledge cancels of tasks that are already terminal (honest: TaskNotCancelableError)"`
}

// Apply implements Behavior.
func (b *IgnoreCancel) Apply(x *core.Exchange) {
	if x.Op != wire.OpCancelTask {
		return
	}
	ignored := false
	x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
		if d.Kind == timeline.DecideCancel && existing != nil && (b.Terminal || !existing.Status.State.Terminal()) {
			d.Kind, d.Reason, ignored = timeline.DecideIgnore, "ignore-cancel", true
		}
	})
	x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
		if !ignored || err != nil || res == nil || res.Task == nil {
			return res, err
		}
		t := res.Task.Clone()
		t.Status = wire.TaskStatus{State: wire.StateCanceled, Timestamp: x.Now.UTC()}
		out := *res
		out.Task = t
		return &out, nil
	})
}
