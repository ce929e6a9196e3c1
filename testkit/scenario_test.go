package testkit_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
)

func TestWithScenarioYAML(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithScenarioYAML([]byte(`
server: {seed: 3}
agents:
  - name: planner
    card:
      name: Trip planner
      skills: [{id: plan, name: Plan a trip}]
  - name: coder
`)))
	resp, err := http.Get(mock.CardURL("planner"))
	require.NoError(t, err)
	defer resp.Body.Close()
	var card struct {
		Name   string `json:"name"`
		Skills []struct {
			ID string `json:"id"`
		} `json:"skills"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	assert.Equal(t, "Trip planner", card.Name)
	require.Len(t, card.Skills, 1)
	assert.Equal(t, "plan", card.Skills[0].ID)
	assert.Equal(t, []string{"planner", "coder"}, mock.Server().AgentNames())
}

func TestWithScenarioFile(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithScenarioFile("../examples/incidents/task-minted-for-unknown-id.yaml"))
	assert.Equal(t, []string{"forgetful", "honest"}, mock.Server().AgentNames())
	assert.Len(t, mock.Server().Behaviors("forgetful"), 1)
}

func TestWithScenarioErrors(t *testing.T) {
	t.Parallel()
	_, err := testkit.NewServer(testkit.WithScenarioYAML([]byte("agents:\n  - name: a\n    behaviors: [nope]\n    colour: red\n")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `scenario.yaml:4:5: agents[0]: unknown key "colour"`)

	_, err = testkit.NewServer(testkit.WithScenarioYAML([]byte("agents:\n  - name: a\n    behaviors: [nope]\n")))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `scenario.yaml:3:17: agents[0].behaviors[0]: unknown behavior "nope"`), err.Error())

	_, err = testkit.NewServer(testkit.WithScenarioFile("does-not-exist.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does-not-exist.yaml")
}

// WithScenario takes a path as a string and YAML as bytes.
func TestWithScenarioByType(t *testing.T) {
	t.Parallel()
	fromFile := testkit.Start(t, testkit.WithScenario("../examples/incidents/three-worker-incident.yaml"))
	assert.Equal(t, []string{"worker-1", "worker-2", "worker-3"}, fromFile.Server().AgentNames())
	fromYAML := testkit.Start(t, testkit.WithScenario([]byte("agents: [{name: solo}]\n")))
	assert.Equal(t, []string{"solo"}, fromYAML.Server().AgentNames())
}
