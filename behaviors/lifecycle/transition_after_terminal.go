package lifecycle

import (
	"fmt"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var transitionAfterTerminalSpec = core.Spec{
	Name: "transition-after-terminal",
	Doc: `Reproduces agents that keep changing a task after it reached completed,
failed or canceled: a further state (working by default) follows the terminal
one, on the stream right after it and in the stored task (GetTask) unless
event-only is set. Tests that a client treats a terminal state as final and
flags, rather than applies, any transition out of it.`,
	New: func() core.Behavior { return &TransitionAfterTerminal{State: wire.StateWorking} },
}

// TransitionAfterTerminal emits a state after the task's terminal state. It
// tests that clients never leave a terminal state.
type TransitionAfterTerminal struct {
	// State is the state emitted after the terminal one.
	State wire.TaskState `param:"state" doc:"state emitted after the terminal one (submitted, working, input-required, completed, failed, ...)"`
	// After delays the extra state in the stored task.
	After time.Duration `param:"after" doc:"delay between the terminal state and the extra one in the stored task (a stream gets the extra event at once, since it would close)"`
	// EventOnly leaves the stored task terminal.
	EventOnly bool `param:"event-only" doc:"emit the event without changing the stored task, so GetTask keeps the terminal state"`
}

// Validate implements Validator.
func (b *TransitionAfterTerminal) Validate() error {
	if !b.State.Valid() || b.State == wire.StateUnknown {
		return fmt.Errorf("state %q is not a task state (one of %v)", b.State, wire.AllStates)
	}
	if b.After < 0 {
		return fmt.Errorf("after must not be negative")
	}
	return nil
}

// Apply implements Behavior.
func (b *TransitionAfterTerminal) Apply(x *core.Exchange) {
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		i := firstTerminal(tl)
		if i < 0 {
			return tl
		}
		out := tl[: i+1 : i+1].Clone()
		out = append(out, timeline.Step{Kind: timeline.StepState, State: b.State, After: b.After, EventOnly: b.EventOnly})
		return append(out, tl[i+1:]...)
	})
	fired := false
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if err := emit(ev); err != nil {
			return err
		}
		if fired || ev.Status == nil || !ev.Status.Status.State.Terminal() {
			return nil
		}
		fired = true
		extra := *ev.Status
		extra.Status = wire.TaskStatus{State: b.State, Timestamp: ev.Status.Status.Timestamp}
		extra.Final = b.State.Terminal() || b.State.Interrupted()
		return emit(wire.Event{Status: &extra})
	})
}
