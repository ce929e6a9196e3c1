package behaviors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func TestStuckSubmittedForEver(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "stuck-submitted:skill=quick"))
	a := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "submitted", a.Task.State)
	// A follow-up message does not unstick it.
	c := r.sendTo(wire.V03, message(wire.V03, "hello?", "quick", a.Task.ID))
	assert.Equal(t, a.Task.ID, c.Task.ID)
	assert.Equal(t, "submitted", c.Task.State)
	assert.Equal(t, "submitted", r.get(wire.V10, a.Task.ID).Task.State)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted}, journalStates(r.srv, a.Task.ID))

	obs, closed := r.streamLeft(wire.V10, message(wire.V10, "go", "quick", ""), 1)
	assert.Equal(t, "task:submitted", kinds(obs))
	assert.Equal(t, "client gone", closed, "the stream stays open on submitted")

	// Out of scope: skill ask goes on honestly.
	assert.Equal(t, "input-required", r.sendTo(wire.V10, message(wire.V10, "go", "ask", "")).Task.State)
}

// beyond-estimate keeps the task submitted for the skill's declared
// estimatedDuration plus for, then lets it go on.
func TestStuckSubmittedBeyondEstimate(t *testing.T) {
	t.Parallel()
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newLifecycleRig(t, func(c *server.Config) { c.Clock = clk }, parse(t, "stuck-submitted:beyond-estimate=true,for=500ms"))
	params := map[string]any{"message": message(wire.V10, "go", "quick", ""), "configuration": map[string]any{"returnImmediately": true}}
	a := r.call(wire.V10, wire.OpSend, params)
	require.Equal(t, "submitted", a.Task.State)

	// The player arms its timer in its own goroutine: advancing before it
	// has would push the deadline past the advances below (seen under a
	// loaded make test).
	blockUntil(t, clk, 1)
	clk.Advance(2 * time.Second) // the card's estimate for quick
	assert.Equal(t, "submitted", r.get(wire.V10, a.Task.ID).Task.State, "still submitted once the estimate has passed")
	clk.Advance(499 * time.Millisecond)
	assert.Equal(t, "submitted", r.get(wire.V10, a.Task.ID).Task.State)
	clk.Advance(time.Millisecond)
	require.Eventually(t, func() bool { return r.get(wire.V10, a.Task.ID).Task.State == "completed" }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, journalStates(r.srv, a.Task.ID))
}

func TestStuckSubmittedParams(t *testing.T) {
	t.Parallel()
	_, err := parseErr("stuck-submitted:for=-1s")
	require.ErrorContains(t, err, "for must not be negative")
	_, err = parseErr("stuck-submitted:for=soon")
	require.ErrorContains(t, err, "not a duration")
}
