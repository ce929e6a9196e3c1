package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// A blocking continuation answers with the state the task reaches after
// taking the message, never with the interrupted state it was in before:
// with skip-working the continuation's first step is delayed, and the send
// used to return the old input-required status at once.
func TestBlockingContinuationWaitsPastInterrupted(t *testing.T) {
	t.Parallel()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sw, err := behaviors.Parse("skip-working")
			require.NoError(t, err)
			h := start(t, server.Config{Seed: 7, StepDelay: 20 * time.Millisecond,
				Agents: []server.AgentConfig{{Name: "agent", Card: testCard(c.card, false), Behaviors: []behaviors.Behavior{sw}}}})
			cl := newClient(t, h, c)
			tk := cl.mustSend(sendOpts{skill: "ask"})
			require.Equal(t, wire.StateInputRequired, tk.State)

			next := cl.mustSend(sendOpts{text: "this one", taskID: tk.ID, contextID: tk.ContextID})
			assert.Equal(t, tk.ID, next.ID)
			assert.Equal(t, wire.StateCompleted, next.State, "the blocking continuation waits for the state after the message")
			assert.Equal(t, 1, next.Artifacts)
		})
	}
}
