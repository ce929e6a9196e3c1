package behaviors_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/behaviors/core"
)

// docs/behaviors.md is generated from the registry; whoever changes the
// catalogue must run `go generate ./behaviors`.
func TestDocsBehaviorsUpToDate(t *testing.T) {
	t.Parallel()
	got, err := os.ReadFile("../docs/behaviors.md")
	require.NoError(t, err, "run go generate ./behaviors")
	require.Equal(t, behaviors.Describe(behaviors.Catalogue()), string(got),
		"docs/behaviors.md is out of date with the catalogue: run go generate ./behaviors")
}

func TestReadmeSummaryUpToDate(t *testing.T) {
	t.Parallel()
	got, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	want, err := behaviors.SpliceSummary(string(got), behaviors.Summary(behaviors.Catalogue()))
	require.NoError(t, err)
	require.Equal(t, want, string(got), "README.md's catalogue summary is out of date: run go generate ./behaviors")
	for _, name := range behaviors.Catalogue().Names() {
		require.Contains(t, string(got), "| `"+name+"` |", "every behavior is listed")
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	md := behaviors.Describe(behaviors.Catalogue())
	for _, n := range behaviors.Catalogue().Names() {
		assert.Contains(t, md, "## `"+n+"`\n")
	}
	assert.Contains(t, md, "| `keep-context` | bool | `true` | give the new task the original task's contextId (false mints a new context) |")
	assert.Contains(t, md, "| `where` | list of string (a\\|b\\|c) | `events\\|result` |", "pipes are escaped in table cells")
	for _, k := range behaviors.ScopeKeys {
		line := "| `" + k + "` | "
		i := strings.Index(md, line)
		require.GreaterOrEqual(t, i, 0, k)
		rest := md[i+len(line):]
		assert.NotEqual(t, " |", rest[:2], "scope key %s is documented", k)
		assert.NotEqual(t, "|", rest[:1], "scope key %s is documented", k)
	}
}

func TestFirstSentenceSkipsAbbreviations(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]string{
		"Reproduces agents that answer the wrong code, e.g. -32603 for a missing task. Tests that x.": "Reproduces agents that answer the wrong code, e.g. -32603 for a missing task.",
		"One, i.e. Two things. More.":         "One, i.e. Two things.",
		"Waits 2.5 s. Then goes on.":          "Waits 2.5 s.",
		"No end":                              "No end",
		"Asks why? Because. Ok.":              "Asks why?",
		"Ends at `x`. `y` next.":              "Ends at `x`.",
		"Ends at version 1.0. Next sentence.": "Ends at version 1.0.",
	} {
		assert.Equal(t, want, core.FirstSentence(doc), doc)
	}
	assert.NotContains(t, behaviors.Summary(behaviors.Catalogue()), "e.g. |", "no summary is cut at an abbreviation")
}
