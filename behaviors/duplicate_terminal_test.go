package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestDuplicateTerminal(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "duplicate-terminal:count=2,dialect=0.3"))

	obs, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed:final status:completed:final status:completed:final$`, kinds(obs))
	id := obs[0].TaskID
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted, wire.StateCompleted, wire.StateCompleted}, journalStates(r.srv, id))
	assert.Equal(t, "completed", r.get(wire.V03, id).Task.State)

	// Out of scope (v1.0): one terminal event.
	h, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed$`, kinds(h))

	_, err = parseErr("duplicate-terminal:count=0")
	require.ErrorContains(t, err, "count must be between 1 and 100")
}
