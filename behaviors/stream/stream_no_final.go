package stream

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var streamNoFinalSpec = core.Spec{
	Name: "stream-no-final",
	Doc: `Reproduces agents whose streams never say they are done. In v0.x the
event that ends the stream (a terminal or interrupted status) goes out with
final:false, and the stream closes after it; in v1.0, which has no final
flag, that event is never sent and the stream is closed after the event
before it. Tests that a client does not treat the end of a stream as the end
of the task: it must notice the missing final marker or terminal state and
fall back to GetTask (or resubscribe) instead of reporting a finished task,
or hanging for a final event that will never come.`,
	New: func() core.Behavior { return &StreamNoFinal{} },
}

// StreamNoFinal strips the end-of-stream marker from streams: final:false
// in v0.x, the terminal event withheld in v1.0.
type StreamNoFinal struct{}

// Apply implements Behavior.
func (b *StreamNoFinal) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	closes := !wire.Describe(x.Dialect).FinalFlag
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, raw core.RawStream) error {
		if ev.Status == nil || !endsStream(ev) {
			return emit(ev)
		}
		if closes {
			// Closing here, before the terminal event, is what a crashed
			// or careless v1.0 agent looks like on the wire (its streams
			// end by closing; there is no final flag to withhold).
			raw.Close()
			return nil
		}
		st := *ev.Status
		st.Final = false
		ev.Status = &st
		return emit(ev)
	})
}

// endsStream reports whether a status event ends a stream: final in v0.x, a
// terminal or interrupted state in every dialect.
func endsStream(ev wire.Event) bool {
	if ev.Status == nil {
		return false
	}
	s := ev.Status.Status.State
	return ev.Status.Final || s.Terminal() || s.Interrupted()
}
