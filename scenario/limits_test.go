package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/scenario"
)

// billionLaughs is the classic alias bomb: nine levels of ten aliases each
// stand for 10^9 nodes in a file of under a kilobyte.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		p := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		b.WriteString(strings.TrimSuffix(strings.Repeat(p+", ", 10), ", "))
		b.WriteString("]\n")
	}
	b.WriteString("agents: *a9\n")
	return b.String()
}

// TestParseBoundsHostileInput: each input once made the YAML parser or the
// decoder run out of memory (or take minutes); each is now refused fast,
// with the file:line:col where it crosses the bound.
func TestParseBoundsHostileInput(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"deep flow sequence", "agents: " + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + "\n",
			"huge.yaml:1:72: nested more than 64 levels deep"},
		{"deep flow mapping", "agents: " + strings.Repeat("{a: ", 100_000) + "x" + strings.Repeat("}", 100_000) + "\n",
			"huge.yaml:1:261: nested more than 64 levels deep"},
		{"deep block sequence", "agents:\n" + strings.Repeat("- ", 200_000) + "x\n",
			"huge.yaml:2:129: nested more than 64 levels deep"},
		{"billion laughs", billionLaughs(),
			"huge.yaml:5:45: aliases expand to more than 100000 YAML nodes"},
		{"too large", "agents:\n- name: a\n  description: \"" + strings.Repeat("x", 2<<20) + "\"\n",
			"huge.yaml:3:1048559: the file is larger than 1048576 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := scenario.Parse([]byte(tc.src), "huge.yaml")
			elapsed := time.Since(start)
			var se *scenario.Error
			require.True(t, errors.As(err, &se), "want a *scenario.Error, got %v", err)
			require.Len(t, se.Problems, 1)
			assert.Contains(t, se.Problems[0].String(), tc.want)
			assert.Less(t, elapsed, 10*time.Second, "refusing the input took too long (before the bounds: minutes, then out of memory)")
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(512<<20), "refusing the input allocated too much")
		})
	}
}

// TestParseAcceptsModestAliases: anchors and aliases stay usable in a file
// of ordinary size, and a file nested to the bound still parses.
func TestParseAcceptsModestAliases(t *testing.T) {
	src := `
agents:
  - name: a
    card: &card
      description: shared
  - name: b
    card: *card
`
	s, err := scenario.Parse([]byte(src), "ok.yaml")
	require.NoError(t, err)
	require.Len(t, s.Agents, 2)
}

// TestLoadReadsAtMostTheBound: Load does not read an oversized file whole.
func TestLoadReadsAtMostTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	require.NoError(t, os.WriteFile(path, []byte("agents: []\n#"+strings.Repeat("x", 3<<20)+"\n"), 0o600))
	_, err := scenario.Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "big.yaml:2:1048566: the file is larger than 1048576 bytes")
}

// TestParseValuelessTags: a YAML tag with no value made go-yaml's decoder
// dereference nil where the field is a list, and validate and serve
// --scenario crashed (FuzzParse found "agents:\n  ! "). Each is now a
// problem at the tag, and a tag with a value still decodes.
func TestParseValuelessTags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"agents: !\n", "t.yaml:1:9: agents: the YAML tag ! has no value after it"},
		{"agents:\n  ! \n", "t.yaml:2:3: agents: the YAML tag ! has no value after it"},
		{"agents: &a !\n", "t.yaml:1:12: agents: the YAML tag ! has no value after it"},
		{"agents:\n  - name: a\n    behaviors: !!seq\n", "t.yaml:3:16: agents[0].behaviors: the YAML tag !!seq has no value after it"},
		{"agents:\n  - name: a\n    behaviors: !!null ~\n", "t.yaml:3:16: agents[0].behaviors: the YAML tag !!null has no value after it (or a null one)"},
		{"!\n", "t.yaml:1:1: the YAML tag ! has no value after it"},
	} {
		_, err := scenario.Parse([]byte(tc.src), "t.yaml")
		var se *scenario.Error
		if assert.True(t, errors.As(err, &se), "%q: want a *scenario.Error, got %v", tc.src, err) {
			assert.Contains(t, se.Error(), tc.want, tc.src)
		}
	}
	s, err := scenario.Parse([]byte("agents: !!seq\n  - name: a\n    behaviors: ! [skip-working]\n"), "t.yaml")
	require.NoError(t, err)
	require.Len(t, s.Agents, 1)
	assert.Len(t, s.Agents[0].Behaviors, 1)
}
