package push

import (
	"math/rand/v2"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var pushDropSpec = core.Spec{
	Name: "push-drop",
	Doc: `Reproduces webhooks that never arrive: a sender without retries, a
notification lost between queue and HTTP call. Each push notification is
dropped with probability 'rate' (seeded); with terminal=true exactly the
terminal notification is dropped instead. Tests that a client whose only
channel is push treats the observed history as lossy and, when the terminal
notification does not come, falls back to GetTask within a bound.`,
	New: func() core.Behavior { return &PushDrop{Rate: 0.5} },
}

// PushDrop drops push notifications.
type PushDrop struct {
	Rate     float64 `param:"rate" doc:"probability that a notification is dropped (ignored with terminal=true)"`
	Terminal bool    `param:"terminal" doc:"drop exactly the terminal notification, nothing else"`
}

// Validate implements Validator.
func (b *PushDrop) Validate() error { return core.ValidRate("rate", b.Rate) }

// Apply implements Behavior.
func (b *PushDrop) Apply(x *core.Exchange) {
	r := pushRand(x)
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) {
		if b.Terminal {
			if !core.EndsPush(ev) {
				deliver(ev, core.PushOptions{})
			}
			return
		}
		if r.Float64() >= b.Rate {
			deliver(ev, core.PushOptions{})
		}
	})
}

// pushRand is a source of the push filters' own: they run on the task's
// player long after the request, so they must not share x.Rand.
func pushRand(x *core.Exchange) *rand.Rand {
	r := core.Rand(x)
	return rand.New(rand.NewPCG(r.Uint64(), r.Uint64()))
}
