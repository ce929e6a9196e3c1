package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

func TestPushDuplicate(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-duplicate")
	id := p.sendWithPush(false)
	p.settle(id, 8)
	assert.Equal(t, []string{"submitted", "submitted", "working", "working", "artifact", "artifact", "completed", "completed"}, pushKinds(p.hook, id))
	p.hook.AssertReceivedStates(t, id, wire.StateSubmitted, wire.StateWorking, wire.StateCompleted)
	assert.Empty(t, p.hook.Divergences(), "a repeated state is no divergence")
}
