package stream

import (
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var streamEOFMidFrameSpec = core.Spec{
	Name: "stream-eof-mid-frame",
	Doc: `Reproduces a stream that dies in the middle of an event: a crashed agent
process, a proxy timeout or a load balancer recycling the connection. After
'after' complete events, the first half of the next event's SSE frame is
written and the connection is closed, with no blank line ending the frame.
All bindings: on gRPC the first half of the next length-prefixed message
is written and the call ends with no trailers, as a crashed agent's would
(gRPC clients report INTERNAL: grpc-go an unexpected EOF, grpc-js a call
ended without a status). Tests that a client reports the truncated stream as an error (an unexpected
EOF) instead of silently dropping the partial event and treating the end of
input as a normal end of the stream.`,
	New: func() core.Behavior { return &StreamEOFMidFrame{After: 1} },
}

// StreamEOFMidFrame cuts a stream in the middle of an event frame.
type StreamEOFMidFrame struct {
	After int `param:"after" doc:"number of complete events sent before the cut one"`
}

// Validate implements Validator.
func (b *StreamEOFMidFrame) Validate() error {
	if b.After < 0 {
		return fmt.Errorf("after must be 0 or more, not %d", b.After)
	}
	return nil
}

// Apply implements Behavior.
func (b *StreamEOFMidFrame) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	sent := 0
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, raw core.RawStream) error {
		if sent < b.After {
			sent++
			return emit(ev)
		}
		frame, err := raw.Encode(ev)
		if err != nil {
			return err
		}
		// Half a frame never contains the blank line that ends it, so the
		// event cannot be dispatched by a conforming reader.
		cut := max(1, len(frame)/2)
		err = raw.WriteRaw(frame[:cut])
		// A stream that dies mid-event sends nothing after it: no gRPC
		// trailers saying the call went well.
		if c, ok := raw.(core.RawCutter); ok {
			c.Cut()
		} else {
			raw.Close()
		}
		return err
	})
}
