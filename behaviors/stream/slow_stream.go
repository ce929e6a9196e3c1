package stream

import (
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var slowStreamSpec = core.Spec{
	Name: "slow-stream",
	Doc: `Reproduces streams that dribble: agents that think between tokens,
congested links and proxies that buffer. Before each event of a stream the
agent waits a delay drawn from a seeded distribution: fixed (delay), uniform
(min..max), normal (mean delay, stddev) or lognormal (median delay, shape
sigma). The wait ends at once when the client leaves or the server closes.
Tests that a client's stream read timeout is per event (idle time) rather
than for the whole stream, that it shows progress as events arrive, and that
cancelling a slow stream releases the connection.`,
	New: func() core.Behavior { return &SlowStream{Dist: "fixed", Delay: 200 * time.Millisecond, Sigma: 0.5} },
}

// SlowStream delays every event of a stream by a seeded random duration.
type SlowStream struct {
	Dist   string        `param:"dist" doc:"distribution: fixed, uniform, normal or lognormal"`
	Delay  time.Duration `param:"delay" doc:"the delay (fixed), the mean (normal) or the median (lognormal); at most 10m (core.MaxDelay), to which every delay drawn is cut"`
	Min    time.Duration `param:"min" doc:"lower bound of uniform"`
	Max    time.Duration `param:"max" doc:"upper bound of uniform"`
	StdDev time.Duration `param:"stddev" doc:"standard deviation of normal (draws below zero mean no delay)"`
	Sigma  float64       `param:"sigma" doc:"shape of lognormal: the standard deviation of the log of the delay"`
}

// Validate implements Validator.
func (b *SlowStream) Validate() error {
	return core.ValidateDist(b.Dist, b.Delay, b.Min, b.Max, b.StdDev, b.Sigma)
}

// Apply implements Behavior.
func (b *SlowStream) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	r := core.Rand(x)
	ctx, clk := x.Context(), core.ClockOf(x)
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, _ core.RawStream) error {
		if !timeline.Sleep(ctx, clk, core.SampleDelay(r, b.Dist, b.Delay, b.Min, b.Max, b.StdDev, b.Sigma)) {
			return ctx.Err()
		}
		return emit(ev)
	})
}
