package scenario_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/scenario"
)

// The README's scenario example must stay a valid, servable scenario.
func TestReadmeScenarioExample(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	doc := string(readme)
	start := strings.Index(doc, "```yaml\n")
	require.GreaterOrEqual(t, start, 0, "README has a yaml example")
	body := doc[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	sc, err := scenario.Parse([]byte(body), "README.md")
	require.NoError(t, err)
	_, err = sc.Config(behaviors.Catalogue())
	require.NoError(t, err)
}
