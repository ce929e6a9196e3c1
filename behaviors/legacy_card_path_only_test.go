package behaviors_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/cards"
)

func TestLegacyCardPathOnly(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "legacy-card-path-only:calls=1-2"))
	status, _ := r.fetch("/.well-known/agent-card.json")
	assert.Equal(t, http.StatusNotFound, status)
	status, body := r.fetch("/.well-known/agent.json")
	assert.Equal(t, http.StatusOK, status)
	c, err := cards.Parse(body)
	assert.NoError(t, err)
	assert.Equal(t, "a", c.Name)
	// The third card request is out of scope: the current path works.
	status, _ = r.fetch("/.well-known/agent-card.json")
	assert.Equal(t, http.StatusOK, status)
}
