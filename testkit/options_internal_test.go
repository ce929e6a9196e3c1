package testkit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/behaviors/lifecycle"
	"github.com/a2amock/a2amock/server"
)

// Behaviors reach each agent in the order the options gave them, specs and
// Go values interleaved.
func TestBehaviorsKeepTheOrderGiven(t *testing.T) {
	t.Parallel()
	value := &lifecycle.SkipWorking{}
	cfg, err := buildConfig([]Option{
		WithAgents("a", "b"),
		WithBehavior("b", "never-terminal"),
		WithBehaviorValue("b", value),
		WithBehavior("", "latency:delay=1ms"),
		WithBehavior("b", "stuck-submitted", "latency:delay=2ms"),
	})
	require.NoError(t, err)
	names := func(bs []behaviors.Behavior) []string {
		var out []string
		for _, b := range bs {
			if sc, ok := b.(*behaviors.Scoped); ok {
				out = append(out, sc.Text)
			} else {
				out = append(out, "value")
			}
		}
		return out
	}
	assert.Equal(t, []string{"latency:delay=1ms"}, names(cfg.Agents[0].Behaviors))
	assert.Equal(t, []string{"never-terminal", "value", "stuck-submitted", "latency:delay=2ms"}, names(cfg.Agents[1].Behaviors))
}

// A behavior for an agent that is not configured, or scoped to another
// agent, would never act: Start fails instead of creating an honest agent.
func TestBehaviorForUnknownAgentIsAnError(t *testing.T) {
	t.Parallel()
	_, err := buildConfig([]Option{WithAgents("coder"), WithBehavior("codr", "never-terminal")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `WithBehavior("codr"): no agent "codr" is configured (agents: coder)`)

	_, err = buildConfig([]Option{WithAgents("a", "b"), WithBehavior("a", "never-terminal:agent=b")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"never-terminal:agent=b" is scoped to agent "b"`)

	_, err = buildConfig([]Option{WithBehaviorValue("ghost", &lifecycle.SkipWorking{})})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no agent "ghost" is configured (agents: agent)`)

	_, err = NewServer(WithBehavior("", "never-termnal"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "never-terminal"?`)
}

// SetBehavior parses through the registry the mock was configured with, so
// a team's own behaviors can be switched on mid-test.
func TestSetBehaviorUsesTheConfiguredRegistry(t *testing.T) {
	t.Parallel()
	reg := behaviors.NewRegistry().MustRegister(behaviors.Spec{Name: "team-fault", Doc: "a team's own fault.",
		New: func() behaviors.Behavior { return &lifecycle.SkipWorking{} }})
	m := Start(t, WithServerConfig(func(c *server.Config) { c.Registry = reg }))
	require.NoError(t, m.setBehavior("agent", []string{"team-fault"}))
	err := m.setBehavior("agent", []string{"never-terminal"})
	require.Error(t, err, "the catalogue's names are not in this registry")
	assert.Contains(t, err.Error(), `unknown behavior "never-terminal"`)
}
