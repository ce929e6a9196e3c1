package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPushOnce(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-once")
	id := p.sendWithPush(false)
	p.settle(id, 1)
	assert.Equal(t, []string{"submitted"}, pushKinds(p.hook, id))
	assert.Len(t, p.hook.Ledger().Unreconciled(), 1, "a push-only client is left waiting")
}
