package behaviors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/a2a"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
)

func TestNeverTerminal(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, func(c *server.Config) { c.TaskRetention = 1 }, parse(t, "never-terminal:call=1"))

	a := r.sendTo(a2a.V10, message(a2a.V10, "go", "quick", ""))
	require.Zero(t, a.Code)
	assert.Equal(t, "working", a.Task.State)
	assert.Zero(t, a.Task.Artifacts)
	// Out of scope (call 2 onwards): honest, and the retention of 1 would
	// evict the first task were it terminal: a working task is never
	// collected.
	for range 3 {
		assert.Equal(t, "completed", r.sendTo(a2a.V10, message(a2a.V10, "go", "quick", "")).Task.State)
	}
	for range 3 {
		assert.Equal(t, "working", r.get(a2a.V10, a.Task.ID).Task.State)
		assert.Equal(t, "working", r.get(a2a.V03, a.Task.ID).Task.State)
	}
	assert.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking}, journalStates(r.srv, a.Task.ID))
}

// On a stream the client sees working and then only keep-alives; an
// input-needing task's continuation and a scripted timeline without working
// stop at working too.
func TestNeverTerminalStreamAndScripts(t *testing.T) {
	t.Parallel()
	script := timeline.Timeline{{Kind: timeline.StepState, State: a2a.StateSubmitted}, {Kind: timeline.StepState, State: a2a.StateCompleted}}
	r := newLifecycleRig(t, func(c *server.Config) { c.Agents[0].Timelines = map[string]timeline.Timeline{"quick": script} },
		parse(t, "never-terminal:skill=ask"))

	obs, open := r.streamWithin(a2a.V10, message(a2a.V10, "go", "ask", ""), 300*time.Millisecond)
	require.Equal(t, "task:submitted status:working", kinds(obs))
	assert.True(t, open, "the stream waits for a state that never comes")
	c := r.sendTo(a2a.V10, message(a2a.V10, "input", "ask", obs[0].TaskID))
	assert.Equal(t, "working", c.Task.State)

	q := r.sendTo(a2a.V10, message(a2a.V10, "go", "quick", ""))
	assert.Equal(t, "completed", q.Task.State, "out of scope, the script plays")
}
