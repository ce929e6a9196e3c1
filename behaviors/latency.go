package behaviors

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/a2amock/a2amock/timeline"
)

var latencySpec = Spec{
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
	New: func() Behavior {
		return &Latency{Dist: "fixed", Delay: 200 * time.Millisecond, Sigma: 0.5, Phase: "start"}
	},
}

// Latency delays answers by a seeded random duration.
type Latency struct {
	Dist   string        `param:"dist" doc:"distribution: fixed, uniform, normal or lognormal"`
	Delay  time.Duration `param:"delay" doc:"the delay (fixed), the mean (normal) or the median (lognormal)"`
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
	return validateDist(b.Dist, b.Delay, b.Min, b.Max, b.StdDev, b.Sigma)
}

// Apply implements Behavior.
func (b *Latency) Apply(x *Exchange) {
	d := sampleDelay(rng(x), b.Dist, b.Delay, b.Min, b.Max, b.StdDev, b.Sigma)
	if b.Phase == "start" {
		x.AddDelay(d)
		return
	}
	x.OnTransport(func(t Transport) { t.Delay(PhaseBody, d) })
}

// maxDelay bounds every drawn delay, so a long lognormal tail cannot hold a
// request for hours.
const maxDelay = 10 * time.Minute

// validateDist checks the parameters of a delay distribution.
func validateDist(dist string, delay, lo, hi, stddev time.Duration, sigma float64) error {
	switch dist {
	case "fixed", "normal":
		if delay < 0 || stddev < 0 {
			return fmt.Errorf("delay and stddev must not be negative")
		}
	case "uniform":
		if lo < 0 || hi < lo {
			return fmt.Errorf("uniform needs 0 <= min <= max (min=%v, max=%v)", lo, hi)
		}
	case "lognormal":
		if delay <= 0 || sigma < 0 || math.IsNaN(sigma) {
			return fmt.Errorf("lognormal needs a positive delay (the median) and sigma >= 0")
		}
	default:
		return fmt.Errorf("dist must be fixed, uniform, normal or lognormal, not %q", dist)
	}
	return nil
}

// sampleDelay draws one delay from the distribution, clamped to
// [0, maxDelay].
func sampleDelay(r *rand.Rand, dist string, delay, lo, hi, stddev time.Duration, sigma float64) time.Duration {
	var d float64
	switch dist {
	case "uniform":
		d = float64(lo) + r.Float64()*float64(hi-lo)
	case "normal":
		d = float64(delay) + r.NormFloat64()*float64(stddev)
	case "lognormal":
		d = float64(delay) * math.Exp(sigma*r.NormFloat64())
	default:
		d = float64(delay)
	}
	if d < 0 || math.IsNaN(d) {
		return 0
	}
	return min(time.Duration(d), maxDelay)
}

// requestContext is the context that ends when the client leaves or the
// server closes (the server derives request contexts from its own).
func requestContext(x *Exchange) context.Context { return x.Context() }

// clockOf is the clock the exchange's delays wait on.
func clockOf(x *Exchange) timeline.Clock {
	if x.Clock != nil {
		return x.Clock
	}
	return timeline.RealClock{}
}
