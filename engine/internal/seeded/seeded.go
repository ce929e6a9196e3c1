// Package seeded generates the engine's ids and content from seeded
// sources, so that the same seed gives the same ids and text.
package seeded

import (
	"math/rand/v2"

	"github.com/brianvoe/gofakeit/v6"

	"github.com/a2amock/a2amock/wire"
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
	// results holds, per skill, the name and texts Artifact gives its
	// artifacts.
	results map[skillKey]*skillResults
}

// poolSize is the number of sentences in a Content's pool.
const poolSize = 32

type skillKey struct{ id, name string }

// skillResults are a skill's artifact name and, by sentence, its artifact
// texts, each built on first use.
type skillResults struct {
	name  string
	texts [poolSize]string
}

// Sentence returns one of the pool's sentences, picked by rng.
func (c *Content) Sentence(rng *rand.Rand) string { return c.sentences[c.pick(rng)] }

// pick draws the index of a sentence of the pool, filling it on first use.
func (c *Content) pick(rng *rand.Rand) int {
	if c.sentences == nil {
		faker := gofakeit.NewUnlocked(int64(c.Seed))
		c.sentences = make([]string, poolSize)
		for i := range c.sentences {
			c.sentences[i] = faker.Sentence(12)
		}
	}
	return rng.IntN(poolSize)
}

// Artifact returns the artifact of the honest plan for a skill: id, named
// "{skill id}-result", with one text part, "{skill name}: " and a sentence
// picked by rng. It costs one allocation, the artifact and its part
// together: the name and the texts are built once per skill and sentence
// and shared (a string is never changed), where building them on every
// send cost four.
func (c *Content) Artifact(rng *rand.Rand, id, skillID, skillName string) *wire.Artifact {
	k := skillKey{skillID, skillName}
	r := c.results[k]
	if r == nil {
		if c.results == nil {
			c.results = map[skillKey]*skillResults{}
		}
		r = &skillResults{name: skillID + "-result"}
		c.results[k] = r
	}
	i := c.pick(rng)
	if r.texts[i] == "" {
		r.texts[i] = skillName + ": " + c.sentences[i]
	}
	x := &struct {
		art   wire.Artifact
		parts [1]wire.Part
	}{}
	x.parts[0] = wire.TextPart(r.texts[i])
	x.art = wire.Artifact{ArtifactID: id, Name: r.name, Parts: x.parts[:]}
	return &x.art
}
