package stream

import (
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var resubscribeGapSpec = core.Spec{
	Name: "resubscribe-gap",
	Doc: `Reproduces agents that lose what happened while a client was detached:
re-attaching (SubscribeToTask, tasks/resubscribe) only hooks the client to
future events, and the opening snapshot comes from a stale cache. Precisely:
the re-attach stream's first event, the Task snapshot, is replaced by the
task as it was created — status 'state' (default submitted) with no status
message, no artifacts and only the first message of the history — so state
changes and artifacts emitted while the client was away appear neither in
the snapshot nor in the stream; then the first 'drop' live events after
re-attaching are lost as well (the event ending the stream is never
dropped). GetTask still tells the truth. Tests that a client reconciles with
GetTask after re-attaching instead of trusting the snapshot, and does not
miss an artifact produced while it was disconnected.`,
	New: func() core.Behavior { return &ResubscribeGap{State: string(wire.StateSubmitted)} },
}

// ResubscribeGap makes re-attached streams miss what happened meanwhile.
type ResubscribeGap struct {
	State string `param:"state" doc:"the stale state the re-attach snapshot reports (submitted, working, ...)"`
	Drop  int    `param:"drop" doc:"live events lost after re-attaching"`
}

// Validate implements Validator.
func (b *ResubscribeGap) Validate() error {
	if !wire.TaskState(b.State).Valid() {
		return fmt.Errorf("state %q is not a task state", b.State)
	}
	if b.Drop < 0 {
		return fmt.Errorf("drop must be 0 or more, not %d", b.Drop)
	}
	return nil
}

// Apply implements Behavior.
func (b *ResubscribeGap) Apply(x *core.Exchange) {
	if x.Op != wire.OpSubscribe {
		return
	}
	snapshotSeen, dropped := false, 0
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if ev.Task != nil && !snapshotSeen {
			snapshotSeen = true
			t := ev.Task.Clone()
			t.Status = wire.TaskStatus{State: wire.TaskState(b.State), Timestamp: t.Status.Timestamp}
			t.Artifacts = nil
			if len(t.History) > 1 {
				t.History = t.History[:1]
			}
			ev.Task = t
			return emit(ev)
		}
		if dropped < b.Drop && !endsStream(ev) {
			dropped++
			return nil
		}
		return emit(ev)
	})
}
