package behaviors_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestStatusForOtherTaskPrevious(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "status-for-other-task:op=send|stream"))

	// The first task has no predecessor: the stray id is minted.
	first, err := r.streamUpTo(wire.V10, message(wire.V10, "one", "quick", ""), 10)
	require.NoError(t, err)
	require.Regexp(t, `^task:submitted status:working status:completed artifact:\S+ status:completed$`, kinds(first))
	own := first[0].TaskID
	stray := first[2].TaskID
	assert.NotEqual(t, own, stray)
	assert.Regexp(t, uuidShape, stray)
	for i, o := range first {
		if i != 2 {
			assert.Equal(t, own, o.TaskID)
		}
	}

	// The second stream carries a completed event for the first task.
	second, err := r.streamUpTo(wire.V10, message(wire.V10, "two", "quick", ""), 10)
	require.NoError(t, err)
	require.Len(t, second, 5)
	assert.Equal(t, own, second[2].TaskID)
	assert.Equal(t, "completed", second[2].State)
	assert.NotEqual(t, own, second[0].TaskID)

	// The stray event touches no stored task.
	assert.Empty(t, r.get(wire.V10, stray).Task.ID)
	assert.Equal(t, -32001, r.get(wire.V10, stray).Code)
}

// A literal id with v0.3, and an out-of-scope skill left alone.
func TestStatusForOtherTaskLiteral(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "status-for-other-task:task=someone-else,state=failed,skill=quick"))
	obs, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "quick", ""), 10)
	require.NoError(t, err)
	require.Len(t, obs, 5)
	assert.Equal(t, "status:failed:final", obs[2].String())
	assert.Equal(t, "someone-else", obs[2].TaskID)
	assert.Equal(t, "completed", obs[4].State, "the client's own task still completes")

	h, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "ask", ""), 10)
	require.NoError(t, err)
	assert.Equal(t, "task:submitted status:working status:input-required:final", kinds(h))
}
