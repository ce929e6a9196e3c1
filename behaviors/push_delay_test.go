package behaviors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPushDelay(t *testing.T) {
	t.Parallel()
	t.Run("fixed", func(t *testing.T) {
		t.Parallel()
		p := newPushRig(t, "push-delay:delay=40ms")
		start := time.Now()
		id := p.sendWithPush(false)
		p.settle(id, 4)
		assert.Equal(t, honestPushes, pushKinds(p.hook, id), "order is kept")
		got := p.hook.ReceivedFor(id)
		assert.GreaterOrEqual(t, got[3].At.Sub(start), 4*40*time.Millisecond, "each waits its delay behind the previous")
	})
	t.Run("bad distribution", func(t *testing.T) {
		t.Parallel()
		_, err := behaviorsParse("push-delay:distribution=normal")
		require.Error(t, err)
	})
}
