package push

import (
	"fmt"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var pushDelaySpec = core.Spec{
	Name: "push-delay",
	Doc: `Reproduces slow senders: each notification waits before it is sent,
the wait drawn (seeded) from a distribution: fixed ('delay'), uniform
('delay' plus up to 'jitter') or exponential (mean 'delay', capped at ten
times it). Notifications of a task keep their order. Tests that a client does
not treat a late notification as lost too early, and that its reply-or-push
race is handled (the send reply usually wins).`,
	New: func() core.Behavior { return &PushDelay{Delay: 200 * time.Millisecond, Distribution: "fixed"} },
}

// PushDelay delays push notifications.
type PushDelay struct {
	Delay        time.Duration `param:"delay" doc:"the wait, or the mean for exponential"`
	Jitter       time.Duration `param:"jitter" doc:"uniform: the most added to delay"`
	Distribution string        `param:"distribution" doc:"fixed, uniform or exponential"`
}

// Validate implements Validator.
func (b *PushDelay) Validate() error {
	switch b.Distribution {
	case "fixed", "uniform", "exponential":
	default:
		return fmt.Errorf("distribution must be fixed, uniform or exponential, not %q", b.Distribution)
	}
	if b.Delay < 0 || b.Jitter < 0 {
		return fmt.Errorf("delay and jitter must not be negative")
	}
	return nil
}

// Apply implements Behavior.
func (b *PushDelay) Apply(x *core.Exchange) {
	r := pushRand(x)
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) {
		d := b.Delay
		switch b.Distribution {
		case "uniform":
			if b.Jitter > 0 {
				d += time.Duration(r.Int64N(int64(b.Jitter)))
			}
		case "exponential":
			d = min(time.Duration(r.ExpFloat64()*float64(b.Delay)), 10*b.Delay)
		}
		deliver(ev, core.PushOptions{Delay: d})
	})
}
