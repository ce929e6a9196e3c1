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

func TestForgetTask(t *testing.T) {
	t.Parallel()
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newLifecycleRig(t, func(c *server.Config) { c.Clock = clk }, parse(t, "forget-task:ttl=1m"))

	done := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	require.Equal(t, "completed", done.Task.State)
	parked := r.sendTo(wire.V03, message(wire.V03, "go", "ask", ""))
	require.Equal(t, "input-required", parked.Task.State)

	clk.Advance(59 * time.Second)
	assert.Equal(t, "completed", r.get(wire.V10, done.Task.ID).Task.State, "before the ttl the task is there")
	clk.Advance(time.Second)
	assert.Equal(t, -32001, r.get(wire.V10, done.Task.ID).Code)
	assert.Equal(t, -32001, r.get(wire.V03, parked.Task.ID).Code)
	assert.Equal(t, -32001, r.sendTo(wire.V10, message(wire.V10, "input", "ask", parked.Task.ID)).Code, "a continuation is refused")
	assert.Equal(t, -32001, r.cancel(wire.V10, parked.Task.ID).Code)
	rep := r.rpc("SubscribeToTask", map[string]any{"id": parked.Task.ID})
	require.NotNil(t, rep.Error)
	assert.Equal(t, -32001, rep.Error.Code)

	// The agent did not really forget: the cancel was not carried out.
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired}, journalStates(r.srv, parked.Task.ID))
	// A new task is there until its own ttl.
	fresh := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "completed", r.get(wire.V10, fresh.Task.ID).Task.State)
}

// Out of scope (another skill's sends are never dated, and get-task of a
// task whose status is younger than the ttl passes).
func TestForgetTaskScope(t *testing.T) {
	t.Parallel()
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newLifecycleRig(t, func(c *server.Config) { c.Clock = clk }, parse(t, "forget-task:ttl=1m,op=get-task"))
	a := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	clk.Advance(30 * time.Second)
	assert.Equal(t, "completed", r.get(wire.V10, a.Task.ID).Task.State)
	clk.Advance(30 * time.Second)
	assert.Equal(t, -32001, r.get(wire.V10, a.Task.ID).Code, "dated by its last status change")
	assert.Equal(t, "canceled", r.cancel(wire.V10, r.sendTo(wire.V10, message(wire.V10, "go", "ask", "")).Task.ID).Task.State)

	_, err := parseErr("forget-task:ttl=0s")
	require.ErrorContains(t, err, "ttl must be positive")
}
