package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestTransitionAfterTerminal(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "transition-after-terminal:skill=quick"))

	obs, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed:final status:working$`, kinds(obs))
	id := obs[0].TaskID
	assert.Equal(t, "working", r.get(wire.V10, id).Task.State, "the stored task left its terminal state")
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted, wire.StateWorking}, journalStates(r.srv, id))

	// Out of scope: skill ask's continuation completes and stays completed.
	a := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	c := r.sendTo(wire.V10, message(wire.V10, "input", "ask", a.Task.ID))
	assert.Equal(t, "completed", c.Task.State)
	assert.Equal(t, "completed", r.get(wire.V10, a.Task.ID).Task.State)
}

// event-only with a terminal state: the stream says failed after completed
// while GetTask keeps completed.
func TestTransitionAfterTerminalEventOnly(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "transition-after-terminal:state=failed,event-only=true"))
	obs, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed status:failed$`, kinds(obs))
	assert.Equal(t, "completed", r.get(wire.V10, obs[0].TaskID).Task.State)

	_, err = parseErr("transition-after-terminal:state=done")
	require.ErrorContains(t, err, `state "done" is not a task state`)
}
