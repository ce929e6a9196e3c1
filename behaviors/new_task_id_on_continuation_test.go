package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// The field note, end to end: without metadata.tenant the follow-up gets a
// new task and the original stays working for ever; with it the agent is
// honest.
func TestNewTaskIDOnContinuationFieldNote(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			r := newLifecycleRig(t, nil, parse(t, "new-task-id-on-continuation:unless-metadata=tenant"))

			first := r.sendTo(d, message(d, "do it", "ask", ""))
			require.Zero(t, first.Code)
			assert.Equal(t, "working", first.Task.State, "never reaches input-required")
			follow := r.sendTo(d, message(d, "here is the input", "", first.Task.ID))
			require.Zero(t, follow.Code)
			assert.NotEqual(t, first.Task.ID, follow.Task.ID, "a continuation gets a brand-new task")
			assert.Equal(t, first.Task.ContextID, follow.Task.ContextID, "keep-context defaults to true")
			assert.Equal(t, "completed", follow.Task.State)
			for range 3 {
				assert.Equal(t, "working", r.get(d, first.Task.ID).Task.State, "the original stays working")
			}
			assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, journalStates(r.srv, first.Task.ID))

			// Out of scope (metadata.tenant present): the honest lifecycle.
			hon := r.sendTo(d, withMeta(message(d, "do it", "ask", ""), "tenant", "acme"))
			assert.Equal(t, "input-required", hon.Task.State)
			cont := r.sendTo(d, withMeta(message(d, "input", "", hon.Task.ID), "tenant", "acme"))
			assert.Equal(t, hon.Task.ID, cont.Task.ID)
			assert.Equal(t, "completed", cont.Task.State)
		})
	}
}

func TestNewTaskIDOnContinuationNewContext(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "new-task-id-on-continuation:keep-context=false"))
	first := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	follow := r.sendTo(wire.V10, message(wire.V10, "more", "ask", first.Task.ID))
	assert.NotEqual(t, first.Task.ID, follow.Task.ID)
	assert.NotEqual(t, first.Task.ContextID, follow.Task.ContextID)
	assert.Equal(t, "working", follow.Task.State, "a new task of an input-needing skill stops at working")

	// A new message of a skill that needs no input is held in working too;
	// hold=false plays it honestly.
	q := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "working", q.Task.State)
	r = newLifecycleRig(t, nil, parse(t, "new-task-id-on-continuation:hold=false"))
	q = r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "completed", q.Task.State)
	a := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	assert.Equal(t, "working", a.Task.State, "a skill that needs input is held whatever hold says")
}

// The stream shows the divergence too: the continuation's stream opens
// with a task of another id.
func TestNewTaskIDOnContinuationStream(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "new-task-id-on-continuation"))
	first, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "ask", ""), 2)
	require.NoError(t, err)
	require.Equal(t, "task:submitted status:working", kinds(first))
	follow, err := r.streamUpTo(wire.V10, message(wire.V10, "more", "quick", first[0].TaskID), 10)
	require.NoError(t, err)
	require.NotEmpty(t, follow)
	assert.NotEqual(t, first[0].TaskID, follow[0].TaskID)
	assert.Equal(t, "completed", follow[len(follow)-1].State)
	assert.Equal(t, "working", r.get(wire.V10, first[0].TaskID).Task.State)
}
