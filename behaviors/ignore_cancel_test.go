package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

func TestIgnoreCancel(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "never-terminal:skill=quick"), parse(t, "ignore-cancel"))

	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		a := r.sendTo(d, message(d, "go", "quick", ""))
		assert.Equal(t, "working", a.Task.State)
		c := r.cancel(d, a.Task.ID)
		assert.Zero(t, c.Code, d)
		assert.Equal(t, "canceled", c.Task.State, "the cancel is acknowledged")
		assert.Equal(t, a.Task.ID, c.Task.ID)
		assert.Equal(t, "working", r.get(d, a.Task.ID).Task.State, "but the task keeps working")
		assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, journalStates(r.srv, a.Task.ID))
	}
	// A terminal task still answers TaskNotCancelableError without terminal=true.
	done := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	r.sendTo(wire.V10, message(wire.V10, "in", "ask", done.Task.ID))
	assert.Equal(t, -32002, r.cancel(wire.V10, done.Task.ID).Code)
	// An unknown task is still not found.
	assert.Equal(t, -32001, r.cancel(wire.V10, "nope").Code)
}

func TestIgnoreCancelTerminalAndScope(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "ignore-cancel:terminal=true,call=1"))
	a := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "canceled", r.cancel(wire.V10, a.Task.ID).Task.State)
	assert.Equal(t, "completed", r.get(wire.V10, a.Task.ID).Task.State)

	// The second cancel is out of scope: honest cancel of an input-required task.
	p := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	assert.Equal(t, "canceled", r.cancel(wire.V10, p.Task.ID).Task.State)
	assert.Equal(t, "canceled", r.get(wire.V10, p.Task.ID).Task.State)
}
