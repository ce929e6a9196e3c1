package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/a2a"
)

func TestDuplicateTerminal(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "duplicate-terminal:count=2,dialect=0.3"))

	obs, err := r.streamUpTo(a2a.V03, message(a2a.V03, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed:final status:completed:final status:completed:final$`, kinds(obs))
	id := obs[0].TaskID
	assert.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted, a2a.StateCompleted, a2a.StateCompleted}, journalStates(r.srv, id))
	assert.Equal(t, "completed", r.get(a2a.V03, id).Task.State)

	// Out of scope (v1.0): one terminal event.
	h, err := r.streamUpTo(a2a.V10, message(a2a.V10, "go", "quick", ""), 10)
	require.NoError(t, err)
	assert.Regexp(t, `^task:submitted status:working artifact:\S+ status:completed$`, kinds(h))

	_, err = parseErr("duplicate-terminal:count=0")
	require.ErrorContains(t, err, "count must be between 1 and 100")
}
