package lifecycle

import (
	"errors"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var duplicateTerminalSpec = core.Spec{
	Name: "duplicate-terminal",
	Doc: `Reproduces agents (and retrying gateways) that announce the terminal state
twice or more: the stream carries the same completed/failed/canceled status
update again and the stored status is re-set with a new timestamp. Tests that
a client's terminal handling is idempotent: results are delivered once,
callbacks fire once, and a second terminal event is not a new transition.`,
	New: func() core.Behavior { return &DuplicateTerminal{Count: 1} },
}

// DuplicateTerminal repeats the terminal status update. It tests that
// clients handle the end of a task exactly once.
type DuplicateTerminal struct {
	// Count is the number of extra copies.
	Count int `param:"count" doc:"how many extra copies of the terminal status update are sent"`
	// After spaces the copies in the stored task.
	After time.Duration `param:"after" doc:"delay before each copy in the stored task (a stream gets the copies at once, since it would close)"`
}

// Validate implements Validator.
func (b *DuplicateTerminal) Validate() error {
	if b.Count < 1 || b.Count > 100 {
		return errors.New("count must be between 1 and 100")
	}
	if b.After < 0 {
		return errors.New("after must not be negative")
	}
	return nil
}

// Apply implements Behavior.
func (b *DuplicateTerminal) Apply(x *core.Exchange) {
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		i := firstTerminal(tl)
		if i < 0 {
			return tl
		}
		out := tl[: i+1 : i+1].Clone()
		for range b.Count {
			dup := tl[i]
			dup.After = b.After
			out = append(out, dup)
		}
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
		for range b.Count {
			if err := emit(ev); err != nil {
				return err
			}
		}
		return nil
	})
}
