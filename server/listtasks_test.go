package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// Two runs of one seed answer the same page tokens, though their tasks'
// status times differ (a token used to encode the wall clock).
func TestListTasksPageTokensDeterministic(t *testing.T) {
	t.Parallel()
	tokens := func() []string {
		h := start(t, server.Config{Seed: 31, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
		cl := newClient(t, h, dialectCases[0])
		for range 3 {
			cl.mustSend(sendOpts{})
			time.Sleep(time.Millisecond) // status times surely differ between runs
		}
		var out []string
		for _, rest := range []bool{false, true} {
			p := listOver(h, rest)(t, map[string]any{"pageSize": 1})
			require.NotEmpty(t, p.NextPageToken)
			out = append(out, p.NextPageToken)
			next := listOver(h, rest)(t, map[string]any{"pageSize": 1, "pageToken": p.NextPageToken})
			require.Len(t, next.Tasks, 1)
			out = append(out, next.NextPageToken)
		}
		return out
	}
	first := tokens()
	assert.Equal(t, first, tokens())
}
