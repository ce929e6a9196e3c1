package seeded

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
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
