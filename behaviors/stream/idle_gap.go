package stream

import (
	"fmt"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var idleGapSpec = core.Spec{
	Name: "idle-gap",
	Doc: `Reproduces a stream that goes silent for longer than a proxy's or a
client's idle timeout: after 'after' events the agent writes nothing at
all for 'gap' (no event, no keep-alive comment), then sends the rest of
the stream. Real agents do this while a model thinks; a proxy with a 60s
idle timeout (nginx proxy_read_timeout, cloud load balancers) then cuts
the connection. Every streaming operation, binding and dialect (gRPC
streams have no keep-alive messages to withhold).
Tests that a client's idle timeout is a deliberate choice it reports
(and recovers from, by resubscribing or polling GetTask), and that a
client with no idle timeout keeps reading. Evidence: xagent#1358,
CopilotKit#6980 (streams cut by proxy idle timeouts).`,
	New: func() core.Behavior { return &IdleGap{After: 2, Gap: 65 * time.Second} },
}

// IdleGap holds a stream silent for a while in the middle.
type IdleGap struct {
	After int           `param:"after" doc:"events sent before the silence"`
	Gap   time.Duration `param:"gap" doc:"how long nothing is written (no keep-alive either)"`
}

// Validate implements Validator.
func (b *IdleGap) Validate() error {
	if b.After < 0 || b.Gap < 0 {
		return fmt.Errorf("after and gap must not be negative")
	}
	return nil
}

// Apply implements Behavior.
func (b *IdleGap) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	ctx, clk := x.Context(), core.ClockOf(x)
	sent := 0
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if sent == b.After && !timeline.Sleep(ctx, clk, b.Gap) {
			return ctx.Err()
		}
		sent++
		return emit(ev)
	})
}
