package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// clockCard has one skill that completes without asking for input.
func clockCard() *cards.Card {
	return &cards.Card{
		Name: "clocked", Description: "fake clock test agent", Version: "1.0.0", Dialect: wire.V10,
		Capabilities:       cards.Capabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []cards.Skill{{ID: "quick", Name: "Quick", Description: "answers", Tags: []string{"t"}}},
	}
}

// On a fake clock a live stream waits on exactly two timers, the player's
// next step and the stream's keep-alive, and releases both when it ends: a
// test that awaits them (BlockUntil) and jumps (AdvanceToNext) always lands
// on the next step, never on a stale keep-alive deadline.
func TestStreamTimersOnFakeClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	clk := timeline.NewFakeClock(t0)
	const step = 2 * time.Second
	mock := testkit.Start(t, testkit.WithCard("clocked", clockCard()), testkit.WithClock(clk), testkit.WithStepDelay(step),
		testkit.WithServerConfig(func(c *server.Config) { c.KeepAliveInterval = 15 * time.Second }))
	cl := testkit.NewClient(mock.AgentURL("clocked") + "/")
	defer cl.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	evs, err := cl.Stream(ctx, &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("go")}})
	require.NoError(t, err)
	var got []wire.TaskState
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range evs {
			if err != nil {
				return
			}
			if st := ev.State(); st != "" {
				got = append(got, st)
			}
		}
	}()

	waitCtx, stopWaiting := context.WithCancel(ctx)
	go func() { <-done; stopWaiting() }()
	var jumps []time.Duration
	for {
		before := clk.Now()
		if clk.BlockUntilContext(waitCtx, 2) != nil {
			break
		}
		require.True(t, clk.AdvanceToNext())
		jumps = append(jumps, clk.Now().Sub(before))
	}
	<-done
	assert.Equal(t, []time.Duration{step, step}, jumps, "every jump lands on the next step (working, then the artifact)")
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, got)
	mock.Close()
	assert.Zero(t, clk.Waiters(), "an ended stream and a finished player leave no timer behind")
}
