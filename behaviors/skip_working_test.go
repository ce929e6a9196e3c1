package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestSkipWorking(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "skip-working:skill=ask"))

	obs, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "ask", ""), 10)
	require.NoError(t, err)
	assert.Equal(t, "task:submitted status:input-required", kinds(obs), "submitted goes straight to input-required")
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateInputRequired}, journalStates(r.srv, obs[0].TaskID))

	// v0.3 unary: the same task state, and its continuation (a message of
	// skill quick, out of scope) still works honestly.
	a := r.sendTo(wire.V03, message(wire.V03, "go", "ask", ""))
	assert.Equal(t, "input-required", a.Task.State)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateInputRequired}, journalStates(r.srv, a.Task.ID))

	// Out of scope: skill quick keeps working.
	q, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed$`, kinds(q))
}

// A continuation in scope goes from input-required to completed without
// working.
func TestSkipWorkingContinuation(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "skip-working"))
	a := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	require.Equal(t, "input-required", a.Task.State)
	c := r.sendTo(wire.V10, message(wire.V10, "input", "", a.Task.ID))
	assert.Equal(t, a.Task.ID, c.Task.ID)
	assert.Equal(t, "completed", c.Task.State)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateInputRequired, wire.StateCompleted}, journalStates(r.srv, a.Task.ID))
}
