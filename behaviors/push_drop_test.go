package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

func TestPushDrop(t *testing.T) {
	t.Parallel()
	t.Run("honest baseline", func(t *testing.T) {
		t.Parallel()
		p := newPushRig(t)
		id := p.sendWithPush(false)
		p.settle(id, 4)
		assert.Equal(t, honestPushes, pushKinds(p.hook, id))
	})
	t.Run("terminal", func(t *testing.T) {
		t.Parallel()
		p := newPushRig(t, "push-drop:terminal=true")
		id := p.sendWithPush(false)
		// The task did complete: a client polling GetTask would know.
		rep := p.rpc("GetTask", map[string]any{"id": id})
		assert.Contains(t, string(rep.Result), "TASK_STATE_COMPLETED")
		p.settle(id, 3)
		assert.Equal(t, []string{"submitted", "working", "artifact"}, pushKinds(p.hook, id))
		assert.Equal(t, 3, p.pushAttempts(id), "a dropped notification is never attempted")
		// And the receiver's push-only ledger is left with an orphan.
		task, ok := p.hook.Ledger().Task(id)
		if assert.True(t, ok) {
			assert.Equal(t, wire.StateWorking, task.Last())
		}
		testkit.AssertFellBackToPolling(t, p.hook, p.srv.Journal().Entries(), id)
	})
	t.Run("rate 1 drops all", func(t *testing.T) {
		t.Parallel()
		p := newPushRig(t, "push-drop:rate=1")
		id := p.sendWithPush(false)
		p.settle(id, 0)
		assert.Empty(t, pushKinds(p.hook, id))
	})
	t.Run("bad rate", func(t *testing.T) {
		t.Parallel()
		_, err := behaviorsParse("push-drop:rate=2")
		assert.Error(t, err)
	})
}
