package push

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var pushOnceSpec = core.Spec{
	Name: "push-once",
	Doc: `Reproduces agents that notify only when a task is accepted and never
again (a webhook wired to task creation only): the first state notification
is sent, every later one is dropped. Tests that a client whose only channel
is push notices the silence and polls GetTask within a bound instead of
waiting for ever.`,
	New: func() core.Behavior { return &PushOnce{} },
}

// PushOnce sends only the first state notification of a task.
type PushOnce struct{}

// Apply implements Behavior.
func (b *PushOnce) Apply(x *core.Exchange) {
	sent := false
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) {
		if sent || ev.State() == wire.StateUnspecified {
			return
		}
		sent = true
		deliver(ev, core.PushOptions{})
	})
}
