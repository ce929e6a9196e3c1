package stream

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var streamDuplicateEventsSpec = core.Spec{
	Name: "stream-duplicate-events",
	Doc: `Reproduces streams that deliver an event twice: at-least-once queues,
retrying relays and agents that re-emit the current status on every
internal tick. Each event is sent twice in a row with probability 'rate',
drawn from the run's seed, the terminal one included. Tests that a client's
handling of events is idempotent: a duplicated status must not count as a
new transition, a duplicated artifact must not be stored twice, and a
duplicated terminal event must not be reported as two completions.`,
	New: func() core.Behavior { return &StreamDuplicateEvents{Rate: 0.5} },
}

// StreamDuplicateEvents sends stream events twice at random (seeded).
type StreamDuplicateEvents struct {
	Rate float64 `param:"rate" doc:"probability that an event is sent twice, per event"`
}

// Validate implements Validator.
func (b *StreamDuplicateEvents) Validate() error { return core.ValidRate("rate", b.Rate) }

// Apply implements Behavior.
func (b *StreamDuplicateEvents) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	r := core.Rand(x)
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if err := emit(ev); err != nil {
			return err
		}
		if r.Float64() < b.Rate {
			return emit(ev)
		}
		return nil
	})
}
