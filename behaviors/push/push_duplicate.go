package push

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var pushDuplicateSpec = core.Spec{
	Name: "push-duplicate",
	Doc: `Reproduces at-least-once senders that retry a notification the receiver
already accepted (a timeout after a 2xx, a redelivered queue message): each
notification is sent twice with probability 'rate'. Tests that the receiver
deduplicates (the spec asks it to) and that a repeated state is not counted
as a transition.`,
	New: func() core.Behavior { return &PushDuplicate{Rate: 1} },
}

// PushDuplicate sends push notifications twice.
type PushDuplicate struct {
	Rate float64 `param:"rate" doc:"probability that a notification is sent twice"`
}

// Validate implements Validator.
func (b *PushDuplicate) Validate() error { return core.ValidRate("rate", b.Rate) }

// Apply implements Behavior.
func (b *PushDuplicate) Apply(x *core.Exchange) {
	r := pushRand(x)
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) {
		deliver(ev, core.PushOptions{})
		if r.Float64() < b.Rate {
			deliver(ev, core.PushOptions{})
		}
	})
}
