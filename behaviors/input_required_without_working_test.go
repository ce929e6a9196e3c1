package behaviors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestInputRequiredWithoutWorking(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "input-required-without-working"))

	obs, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "ask", ""), 10)
	require.NoError(t, err)
	assert.Equal(t, "task:submitted status:input-required", kinds(obs))
	// The continuation still works, so only the ordering is wrong.
	c := r.sendTo(wire.V10, message(wire.V10, "input", "ask", obs[0].TaskID))
	assert.Equal(t, "completed", c.Task.State)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateInputRequired, wire.StateWorking, wire.StateCompleted},
		journalStates(r.srv, obs[0].TaskID))

	// Without insert, a skill that never asks for input is untouched.
	q, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed:final$`, kinds(q))
}

// insert=true parks even a task that needs no input, and then lets it work
// on without any input.
func TestInputRequiredWithoutWorkingInsert(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "input-required-without-working:insert=true,prompt=Sure?"))
	obs, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Equal(t, "task:submitted status:input-required:final", kinds(obs))
	id := obs[0].TaskID
	require.Eventually(t, func() bool { return r.get(wire.V10, id).Task.State == "completed" }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateInputRequired, wire.StateWorking, wire.StateCompleted},
		journalStates(r.srv, id))
}
