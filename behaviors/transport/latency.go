package transport

import (
	"fmt"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"
)

var latencySpec = core.Spec{
	Name: "latency",
	Doc: `Reproduces slow agents and slow networks: LLM-backed agents take seconds
to answer, and tail latencies are long. The delay is drawn per request from
a distribution seeded by the run: fixed (delay), uniform (min..max), normal
(mean delay, stddev) or lognormal (median delay, shape sigma), and applied in
one phase: phase=start holds the whole answer back (time to first byte);
phase=body sends the status line and headers at once and holds the body back
(a client that times out on headers only is fooled). Compose two latency
behaviors for both phases. Card fetches are delayed only when the scope
names them (op=agent-card). Every delay waits on the server's clock. All
bindings: on gRPC phase=body sends the response headers and holds the
message back, and a delay that runs past the call's deadline
(grpc-timeout) ends the call at the deadline with DEADLINE_EXCEEDED, as a
gRPC server does. Tests that a
client's timeouts are set and applied to the right phase, that it does not
retry a slow call as a failed one too early, and that a deadline cancels the
call cleanly.`,
	New: func() core.Behavior {
		return &Latency{Dist: "fixed", Delay: 200 * time.Millisecond, Sigma: 0.5, Phase: "start"}
	},
}

// Latency delays answers by a seeded random duration.
type Latency struct {
	Dist   string        `param:"dist" doc:"distribution: fixed, uniform, normal or lognormal"`
	Delay  time.Duration `param:"delay" doc:"the delay (fixed), the mean (normal) or the median (lognormal); at most 10m (core.MaxDelay), to which every delay drawn is cut"`
	Min    time.Duration `param:"min" doc:"lower bound of uniform"`
	Max    time.Duration `param:"max" doc:"upper bound of uniform"`
	StdDev time.Duration `param:"stddev" doc:"standard deviation of normal (draws below zero mean no delay)"`
	Sigma  float64       `param:"sigma" doc:"shape of lognormal: the standard deviation of the log of the delay"`
	Phase  string        `param:"phase" doc:"start: hold the whole answer back; body: send headers, then hold the body back"`
}

// Validate implements Validator.
func (b *Latency) Validate() error {
	if b.Phase != "start" && b.Phase != "body" {
		return fmt.Errorf("phase must be start or body, not %q", b.Phase)
	}
	return core.ValidateDist(b.Dist, b.Delay, b.Min, b.Max, b.StdDev, b.Sigma)
}

// Apply implements Behavior.
func (b *Latency) Apply(x *core.Exchange) {
	d := core.SampleDelay(core.Rand(x), b.Dist, b.Delay, b.Min, b.Max, b.StdDev, b.Sigma)
	if b.Phase == "start" {
		x.AddDelay(d)
		return
	}
	x.OnTransport(func(t core.Transport) { t.Delay(core.PhaseBody, d) })
}
