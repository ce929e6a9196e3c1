package control

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
)

// conf is a fake server configuration of one agent.
type conf struct {
	name string
	bs   []behaviors.Behavior
}

// fakeSource reads scenario documents as {"agents":[{"name":…}]} JSON.
type fakeSource struct{ loader bool }

func (fakeSource) FreshName() string { return "agent-1" }
func (fakeSource) ParseBehaviors(specs []string) ([]behaviors.Behavior, error) {
	var out []behaviors.Behavior
	for _, s := range specs {
		b, err := behaviors.Catalogue().Parse(s)
		if err != nil {
			return nil, errors.New("behaviors[0] " + err.Error())
		}
		out = append(out, b)
	}
	return out, nil
}
func (f fakeSource) HasLoader() bool { return f.loader }
func (fakeSource) Seed() uint64      { return 1 }
func (fakeSource) Load(doc []byte) ([]conf, error) {
	var d struct{ Agents []struct{ Name string } }
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, FieldErrors{{Field: "agents", Message: "not a scenario"}}
	}
	var out []conf
	for _, a := range d.Agents {
		out = append(out, conf{name: a.Name})
	}
	return out, nil
}
func (fakeSource) Name(c conf) string                    { return c.name }
func (fakeSource) Behaviors(c conf) []behaviors.Behavior { return c.bs }
func (fakeSource) With(c conf, name string, bs []behaviors.Behavior) conf {
	return conf{name: name, bs: bs}
}

func TestBuildAgent(t *testing.T) {
	t.Parallel()
	c, fe := BuildAgent[conf](&AgentRequest{Behaviors: json.RawMessage(`["skip-working"]`)}, fakeSource{})
	require.Nil(t, fe)
	assert.Equal(t, "agent-1", c.name, "a generated name")
	assert.Len(t, c.bs, 1)

	c, fe = BuildAgent[conf](&AgentRequest{Name: "x", Scenario: `{"agents":[{"name":"a"},{"name":"b"}]}`, ScenarioAgent: "b",
		Behaviors: json.RawMessage(`["skip-working"]`)}, fakeSource{loader: true})
	require.Nil(t, fe)
	assert.Equal(t, conf{name: "x", bs: c.bs}, c, "agent b of the scenario, renamed")
	assert.Len(t, c.bs, 1)

	for name, tc := range map[string]struct {
		in    AgentRequest
		src   fakeSource
		field string
	}{
		"bad name":           {AgentRequest{Name: "a b"}, fakeSource{}, "name"},
		"empty spec":         {AgentRequest{Behaviors: json.RawMessage(`[""]`)}, fakeSource{}, "behaviors[0]"},
		"not a list":         {AgentRequest{Behaviors: json.RawMessage(`{}`)}, fakeSource{}, "behaviors"},
		"card without load":  {AgentRequest{Card: json.RawMessage(`{}`)}, fakeSource{}, "card"},
		"agent without doc":  {AgentRequest{ScenarioAgent: "a"}, fakeSource{loader: true}, "scenarioAgent"},
		"both":               {AgentRequest{Scenario: "{}", Timelines: json.RawMessage(`{}`)}, fakeSource{loader: true}, "timelines"},
		"no such agent":      {AgentRequest{Scenario: `{"agents":[{"name":"a"}]}`, ScenarioAgent: "z"}, fakeSource{loader: true}, "scenarioAgent"},
		"scenario not valid": {AgentRequest{Scenario: `nope`}, fakeSource{loader: true}, "scenario.agents"},
	} {
		_, fe := BuildAgent[conf](&tc.in, tc.src)
		if assert.NotEmpty(t, fe, name) {
			assert.Equal(t, tc.field, fe[0].Field, name)
		}
	}
}
