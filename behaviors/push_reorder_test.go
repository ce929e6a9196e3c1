package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestPushReorder(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-reorder")
	id := p.sendWithPush(false)
	p.settle(id, 4)
	assert.Equal(t, []string{"working", "submitted", "completed", "artifact"}, pushKinds(p.hook, id))
	task, ok := p.hook.Ledger().Task(id)
	require.True(t, ok)
	assert.Equal(t, []wire.TaskState{wire.StateWorking, wire.StateSubmitted, wire.StateCompleted}, task.States,
		"a receiver that trusts arrival order records the task going back to submitted")
}
