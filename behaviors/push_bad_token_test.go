package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPushBadToken(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-bad-token:token=forged")
	id := p.sendWithPush(false)
	p.settle(id, 4)
	for _, got := range p.hook.ReceivedFor(id) {
		assert.Equal(t, "forged", got.Token)
		assert.Equal(t, "forged", got.Header.Get("A2A-Notification-Token"))
	}
	honest := newPushRig(t)
	id = honest.sendWithPush(false)
	honest.settle(id, 4)
	assert.Equal(t, "tok", honest.hook.ReceivedFor(id)[0].Token)
}
