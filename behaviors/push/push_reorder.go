package push

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var pushReorderSpec = core.Spec{
	Name: "push-reorder",
	Doc: `Reproduces senders that deliver notifications concurrently, so a later
state overtakes an earlier one: each notification is held until the next
one and sent after it (submitted arrives after working, an artifact after
completed). A terminal or interrupted notification with nothing held goes
out at once. Tests that a receiver orders by state and timestamp rather than
arrival, and never moves a terminal task back to an earlier state.`,
	New: func() core.Behavior { return &PushReorder{} },
}

// PushReorder swaps each pair of consecutive push notifications.
type PushReorder struct{}

// Apply implements Behavior.
func (b *PushReorder) Apply(x *core.Exchange) {
	var held *wire.Event
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) {
		switch {
		case held != nil:
			h := *held
			held = nil
			deliver(ev, core.PushOptions{})
			deliver(h, core.PushOptions{})
		case core.EndsPush(ev) || ev.State().Interrupted():
			deliver(ev, core.PushOptions{})
		default:
			held = &ev
		}
	})
}
