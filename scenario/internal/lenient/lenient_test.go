package lenient

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type doc struct {
	Agents []struct {
		Name      string   `yaml:"name"`
		Behaviors []string `yaml:"behaviors"`
		Timelines []string `yaml:"timelines"`
	} `yaml:"agents"`
}

func TestDecodeDropsTheValuesAtFault(t *testing.T) {
	src := []byte("agents:\n  - name: x\n    timelines: {a: b}\n  - {name: y, behaviors: [b1]}\n  - 7\n  - name: z\n")
	var d doc
	assert.False(t, Decode(src, nil, &d), "a mapping where a list is wanted does not decode as it is")

	d = doc{}
	bad := map[string]bool{"agents[0].timelines": true, "agents[2]": true}
	if assert.True(t, Decode(src, bad, &d)) && assert.Len(t, d.Agents, 4, "a dropped element keeps its place") {
		assert.Equal(t, "x", d.Agents[0].Name)
		assert.Empty(t, d.Agents[0].Timelines)
		assert.Equal(t, []string{"b1"}, d.Agents[1].Behaviors)
		assert.Empty(t, d.Agents[2].Name)
		assert.Equal(t, "z", d.Agents[3].Name)
	}
	assert.False(t, Decode([]byte("agents: ["), bad, &d), "YAML that does not parse")
}

func TestUnder(t *testing.T) {
	at := []string{"agents[1].card", "", "server"}
	for path, want := range map[string]bool{
		"agents[1].card":         true,
		"agents[1].card.dialect": true,
		"agents[1].cards":        false,
		"agents[1]":              false,
		"server.limits[0]":       true,
		"serverx":                false,
		"agents[0].name":         false,
	} {
		assert.Equal(t, want, Under(path, at), path)
	}
	assert.False(t, Under("x", nil))
}
