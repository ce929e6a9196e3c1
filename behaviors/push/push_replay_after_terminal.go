package push

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var pushReplayAfterTerminalSpec = core.Spec{
	Name: "push-replay-after-terminal",
	Doc: `Reproduces senders that replay a stale notification after the terminal
one (a retry queue drained late): after the terminal notification, the
latest non-terminal state notification is sent again. Tests that a receiver
keeps a terminal task terminal and reports the late state as a divergence
(transition after terminal) instead of reviving the task.`,
	New: func() core.Behavior { return &PushReplayAfterTerminal{} },
}

// PushReplayAfterTerminal re-sends a stale state after the terminal one.
type PushReplayAfterTerminal struct{}

// Apply implements Behavior.
func (b *PushReplayAfterTerminal) Apply(x *core.Exchange) {
	var last *wire.Event
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) {
		deliver(ev, core.PushOptions{})
		switch {
		case core.EndsPush(ev):
			if last != nil {
				deliver(*last, core.PushOptions{})
				last = nil
			}
		case ev.State() != wire.StateUnspecified:
			e := ev
			last = &e
		}
	})
}
