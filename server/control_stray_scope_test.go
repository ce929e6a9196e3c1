package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// A behavior whose scope names another agent than the one it is set on
// never acts (an agent's behaviors see only its own requests). The control
// API used to take it with 200/201 and leave it silent; testkit and serve
// --behavior refuse it, and so does the control API now: PUT
// /_a2amock/behaviors, POST /_a2amock/agents with specs, and a scenario
// agent created under a new name whose behaviors name its old one.
func TestControlRefusesBehaviorScopedToAnotherAgent(t *testing.T) {
	t.Parallel()
	h := frontDoor(t, func(c *server.Config) {
		c.Agents = []server.AgentConfig{{Name: "alpha"}, {Name: "beta"}}
	})
	fieldOf := func(status int, b []byte) string {
		t.Helper()
		require.Equal(t, http.StatusBadRequest, status, "body: %s", b)
		var e controlErr
		require.NoError(t, json.Unmarshal(b, &e))
		assert.Contains(t, string(b), "would never act")
		return e.Error.Field
	}

	status, _, b := h.do(http.MethodPut, "/_a2amock/behaviors?agent=alpha", []byte(`{"behaviors":["skip-working:agent=alpha","never-terminal:agent=beta"]}`), nil)
	assert.Equal(t, "behaviors[1]", fieldOf(status, b))
	status, _, b = h.do(http.MethodGet, "/_a2amock/behaviors?agent=alpha", nil, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(b), `"behaviors":[]`, "nothing was changed")
	status, _, b = h.do(http.MethodPut, "/_a2amock/behaviors?agent=alpha", []byte(`{"behaviors":["skip-working:agent=alpha"]}`), nil)
	assert.Equal(t, http.StatusOK, status, "scoped to its own agent: %s", b)

	status, b = h.createAgent(`{"name":"c1","behaviors":["skip-working:agent=alpha"]}`)
	assert.Equal(t, "behaviors[0]", fieldOf(status, b))
	status, b = h.createAgent(`{"name":"c2","behaviors":[{"name":"skip-working","scope":{"agent":"nobody"}}]}`)
	assert.Equal(t, "behaviors[0]", fieldOf(status, b))
	status, b = h.createAgent(`{"name":"c3","scenario":"agents:\n  - name: x\n    behaviors: [\"http-error:agent=x\"]\n"}`)
	assert.Equal(t, "scenario.agents[0].behaviors[0]", fieldOf(status, b))
	status, b = h.createAgent(`{"name":"c4","scenario":"agents:\n  - name: x\n","behaviors":["http-error:agent=x"]}`)
	assert.Equal(t, "behaviors[0]", fieldOf(status, b))
	assert.Equal(t, []string{"http-error:agent=c5"}, h.mustCreate(`{"name":"c5","behaviors":["http-error:agent=c5"]}`).Behaviors)
	assert.NotContains(t, h.agentNames(), "c1")
}
