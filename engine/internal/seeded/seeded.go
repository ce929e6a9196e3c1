// Package seeded generates the engine's ids and content from seeded
// sources, so that the same seed gives the same ids and text.
package seeded

import (
	"math/rand/v2"

	"github.com/brianvoe/gofakeit/v6"
)

// UUID returns a UUID-shaped (version 4) id drawn from rng.
func UUID(rng *rand.Rand) string {
	hi, lo := rng.Uint64(), rng.Uint64()
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 36)
	j := 0
	for i, v := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		out[j], out[j+1] = hexdigits[v>>4], hexdigits[v&0x0f]
		j += 2
	}
	return string(out)
}

// Content is a pool of generated sentences, filled from Seed on first use:
// the faker is too slow to call on every send. It is not safe for
// concurrent use (the engine's Agent.mu guards it).
type Content struct {
	Seed      uint64
	sentences []string
}

// Sentence returns one of the pool's sentences, picked by rng.
func (c *Content) Sentence(rng *rand.Rand) string {
	if c.sentences == nil {
		faker := gofakeit.NewUnlocked(int64(c.Seed))
		c.sentences = make([]string, 32)
		for i := range c.sentences {
			c.sentences[i] = faker.Sentence(12)
		}
	}
	return c.sentences[rng.IntN(len(c.sentences))]
}
