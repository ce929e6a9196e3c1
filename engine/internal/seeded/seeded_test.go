package seeded

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

func TestSameSeedSameIDsAndContent(t *testing.T) {
	t.Parallel()
	draw := func() []string {
		rng := rand.New(rand.NewPCG(7, 7))
		c := Content{Seed: 7}
		return []string{UUID(rng), UUID(rng), c.Sentence(rng), c.Sentence(rng)}
	}
	first := draw()
	assert.Equal(t, first, draw())
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), first[0])
	assert.NotEqual(t, first[0], first[1])
	assert.NotEmpty(t, first[2])
}

// TestArtifact: Artifact is the artifact the honest plan built before it
// shared its strings: the id, "{skill id}-result", and "{skill name}: "
// with the sentence Sentence draws from the same source, for each skill.
func TestArtifact(t *testing.T) {
	t.Parallel()
	rng, ref := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	c, refC := Content{Seed: 7}, Content{Seed: 7}
	skills := [][2]string{{"echo", "Echo"}, {"summarize", "Summarize"}, {"echo", "Echo again"}}
	for i := range 200 {
		s := skills[i%len(skills)]
		id := UUID(rng)
		want := &wire.Artifact{ArtifactID: UUID(ref), Name: s[0] + "-result", Parts: []wire.Part{wire.TextPart(s[1] + ": " + refC.Sentence(ref))}}
		assert.Equal(t, want, c.Artifact(rng, id, s[0], s[1]))
	}
}
