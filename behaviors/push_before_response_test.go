package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPushBeforeResponse(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-before-response", "push-delay:delay=50ms")
	id := p.sendWithPush(true)
	// The reply has arrived: the first notification must already be there,
	// although every notification was delayed.
	got := p.hook.ReceivedFor(id)
	if assert.NotEmpty(t, got, "the push arrived before the reply") {
		assert.Equal(t, "submitted", string(got[0].State))
	}

	honest := newPushRig(t, "push-delay:delay=50ms")
	id = honest.sendWithPush(true)
	assert.Empty(t, honest.hook.ReceivedFor(id), "without the behavior the reply wins the race")
}
