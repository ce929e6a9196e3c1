package stream

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var streamDropEventsSpec = core.Spec{
	Name: "stream-drop-events",
	Doc: `Reproduces streams that lose events: an agent whose event queue
overflows, or a fan-out that drops messages under load. Each event that does
not end the stream is dropped with probability 'rate', drawn from the run's
seed; with terminal=true the event that ends the stream may be dropped too
(the stream then closes without it). Tests that a client does not assume it
saw every state: it must tolerate a jump from submitted to completed, an
artifact it never saw announced, and reconcile with GetTask when in doubt.`,
	New: func() core.Behavior { return &StreamDropEvents{Rate: 0.5} },
}

// StreamDropEvents drops stream events at random (seeded).
type StreamDropEvents struct {
	Rate     float64 `param:"rate" doc:"probability that an event is dropped, per event (the scope key probability picks whole requests instead)"`
	Terminal bool    `param:"terminal" doc:"also drop the event that ends the stream (terminal, interrupted or final)"`
}

// Validate implements Validator.
func (b *StreamDropEvents) Validate() error { return core.ValidRate("rate", b.Rate) }

// Apply implements Behavior.
func (b *StreamDropEvents) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	r := core.Rand(x)
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if endsStream(ev) && !b.Terminal {
			return emit(ev)
		}
		if r.Float64() < b.Rate {
			return nil
		}
		return emit(ev)
	})
}
