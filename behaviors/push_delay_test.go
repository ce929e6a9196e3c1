package behaviors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
)

func TestPushDelay(t *testing.T) {
	t.Parallel()
	t.Run("fixed", func(t *testing.T) {
		t.Parallel()
		// On the fake clock: each notification is delivered only once the
		// server's clock has moved by its delay, the next one's delay
		// starting after it (a wall-time lower bound proved less).
		const d = 5 * time.Minute
		clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
		p := newPushRigWith(t, rigOptions{clock: clk}, "push-delay:delay=5m")
		id := p.sendWithPush(false)
		for i := range 4 {
			blockUntilDue(t, clk, d) // notification i+1 waits its delay
			assert.Len(t, p.hook.ReceivedFor(id), i, "delivered before the clock moved by the delay")
			clk.Advance(d - time.Nanosecond)
			assert.Equal(t, 1, clk.Waiters(), "still waiting a nanosecond before the delay")
			assert.Len(t, p.hook.ReceivedFor(id), i)
			clk.Advance(time.Nanosecond)
		}
		p.settle(id, 4)
		assert.Equal(t, honestPushes, pushKinds(p.hook, id), "order is kept")
	})
	t.Run("bad distribution", func(t *testing.T) {
		t.Parallel()
		_, err := behaviorsParse("push-delay:distribution=normal")
		require.Error(t, err)
	})
}
