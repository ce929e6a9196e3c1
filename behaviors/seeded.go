package behaviors

import (
	"fmt"
	"math/rand/v2"
)

// rng returns the exchange's seeded source. The server always sets one when
// behaviors apply; the fallback keeps a hand-built Exchange (in a test or
// another program) deterministic instead of panicking.
func rng(x *Exchange) *rand.Rand {
	if x.Rand == nil {
		x.Rand = rand.New(rand.NewPCG(uint64(x.Call), 0x5eed))
	}
	return x.Rand
}

// validRate checks a per-event probability parameter.
func validRate(name string, p float64) error {
	if p < 0 || p > 1 || p != p {
		return errorf("%s must be between 0 and 1, not %v", name, p)
	}
	return nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
