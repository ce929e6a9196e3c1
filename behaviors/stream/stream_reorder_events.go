package stream

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var streamReorderEventsSpec = core.Spec{
	Name: "stream-reorder-events",
	Doc: `Reproduces streams whose events arrive out of order: agents that emit
from several goroutines or workers, and relays that fan in from partitions.
A status or artifact update that does not end the stream is held back with
probability 'rate' (drawn from the run's seed) and sent right after the
event that follows it; the opening Task snapshot and the event that ends
the stream are never held, so nothing is lost, only swapped. Tests that a
client orders state by the task's status (timestamps) rather than by arrival,
does not move a task backwards (working after completed within one stream
cannot happen here, but artifact-before-working can), and does not drop an
event it received late.`,
	New: func() core.Behavior { return &StreamReorderEvents{Rate: 0.5} },
}

// StreamReorderEvents swaps adjacent stream events at random (seeded).
type StreamReorderEvents struct {
	Rate float64 `param:"rate" doc:"probability that an event is held back behind the next one, per event"`
}

// Validate implements Validator.
func (b *StreamReorderEvents) Validate() error { return core.ValidRate("rate", b.Rate) }

// Apply implements Behavior.
func (b *StreamReorderEvents) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	r := core.Rand(x)
	var held *wire.Event
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if held != nil {
			h := *held
			held = nil
			if err := emit(ev); err != nil {
				return err
			}
			return emit(h)
		}
		if ev.Task == nil && ev.Message == nil && !endsStream(ev) && r.Float64() < b.Rate {
			held = &ev
			return nil
		}
		return emit(ev)
	})
	// A stream can end without a further event (the timeline ends it); the
	// held event then goes out last rather than being lost.
	x.OnStreamEnd(func(raw core.RawStream) bool {
		if held != nil {
			if frame, err := raw.Encode(*held); err == nil {
				_ = raw.WriteRaw(frame)
			}
			held = nil
		}
		return false
	})
}
