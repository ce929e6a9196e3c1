package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

func TestMintTaskForUnknownID(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "mint-task-for-unknown-id:dialect=1.0"))

	a := r.sendTo(wire.V10, message(wire.V10, "continue", "quick", "lost-task"))
	assert.Zero(t, a.Code, "no TaskNotFoundError")
	assert.Equal(t, "lost-task", a.Task.ID, "the task is created under the client's id")
	assert.Equal(t, "completed", a.Task.State)
	assert.Equal(t, 1, a.Task.History, "a fresh task: only this message in its history")
	assert.Equal(t, "completed", r.get(wire.V10, "lost-task").Task.State)

	// Out of scope (v0.3): the honest TaskNotFoundError.
	assert.Equal(t, -32001, r.sendTo(wire.V03, message(wire.V03, "continue", "quick", "other-lost")).Code)
	assert.Equal(t, -32001, r.get(wire.V10, "other-lost").Code)
}

func TestMintTaskForUnknownIDFreshID(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "mint-task-for-unknown-id:keep-id=false"))
	a := r.sendTo(wire.V03, message(wire.V03, "continue", "quick", "lost-task"))
	assert.Zero(t, a.Code)
	assert.NotEqual(t, "lost-task", a.Task.ID)
	assert.Regexp(t, uuidShape, a.Task.ID)
	assert.Equal(t, -32001, r.get(wire.V03, "lost-task").Code)
	// A known task is continued honestly.
	k := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
	c := r.sendTo(wire.V10, message(wire.V10, "input", "ask", k.Task.ID))
	assert.Equal(t, k.Task.ID, c.Task.ID)
	assert.Equal(t, "completed", c.Task.State)
}
