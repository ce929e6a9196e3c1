package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/a2amock/a2amock/timeline"
)

// MaxDelay bounds every drawn delay, so a long lognormal tail cannot hold a
// request for hours.
const MaxDelay = 10 * time.Minute

// ValidateDist checks the parameters of a delay distribution. A
// configured delay (fixed, the mean, the median or uniform's max) above
// MaxDelay is refused rather than silently cut: only a draw from a
// distribution's tail is cut to MaxDelay.
func ValidateDist(dist string, delay, lo, hi, stddev time.Duration, sigma float64) error {
	for _, p := range []struct {
		name string
		d    time.Duration
	}{{"delay", delay}, {"max", hi}} {
		if p.d > MaxDelay {
			return fmt.Errorf("%s %v is longer than the longest delay a2amock waits, %v", p.name, p.d, MaxDelay)
		}
	}
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

// SampleDelay draws one delay from the distribution, clamped to
// [0, MaxDelay].
func SampleDelay(r *rand.Rand, dist string, delay, lo, hi, stddev time.Duration, sigma float64) time.Duration {
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
	return min(time.Duration(d), MaxDelay)
}

// ClockOf is the clock the exchange's delays wait on.
func ClockOf(x *Exchange) timeline.Clock {
	if x.Clock != nil {
		return x.Clock
	}
	return timeline.RealClock{}
}
