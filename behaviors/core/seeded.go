package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Rand returns the exchange's seeded source. The server always sets one when
// behaviors apply; the fallback keeps a hand-built Exchange (in a test or
// another program) deterministic instead of panicking.
func Rand(x *Exchange) *rand.Rand {
	if x.Rand == nil {
		x.Rand = rand.New(rand.NewPCG(uint64(x.Call), 0x5eed))
	}
	return x.Rand
}

// ValidRate checks a per-event probability parameter.
func ValidRate(name string, p float64) error {
	if p < 0 || p > 1 || p != p {
		return errorf("%s must be between 0 and 1, not %v", name, p)
	}
	return nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// CutPoints draws pieces-1 distinct cut offsets in (0, n), sorted; the first
// falls inside the "data:" field name that starts at offset data. There are
// only n-1 offsets, so pieces above n cut at most at every byte.
func CutPoints(r *rand.Rand, n, data, pieces int) []int {
	if n < 2 {
		return nil
	}
	pieces = min(pieces, n)
	seen := map[int]bool{}
	var cuts []int
	add := func(c int) {
		if c > 0 && c < n && !seen[c] {
			seen[c] = true
			cuts = append(cuts, c)
		}
	}
	add(max(0, data) + 1 + r.IntN(4))
	for tries := 0; len(cuts) < pieces-1 && tries < 4*pieces; tries++ {
		add(1 + r.IntN(n-1))
	}
	slices.Sort(cuts)
	return cuts
}

// SplitAt cuts b at the sorted offsets.
func SplitAt(b []byte, cuts []int) [][]byte {
	var out [][]byte
	prev := 0
	for _, c := range cuts {
		out = append(out, b[prev:c])
		prev = c
	}
	return append(out, b[prev:])
}
