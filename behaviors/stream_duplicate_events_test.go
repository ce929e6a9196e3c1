package behaviors_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestStreamDuplicateEvents(t *testing.T) {
	t.Parallel()
	t.Run("rate 1 doubles every event", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "stream-duplicate-events:rate=1,call=1"))
		obs, err := r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err)
		require.Len(t, obs, 8, kinds(obs))
		for i := 0; i < len(obs); i += 2 {
			assert.Equal(t, obs[i], obs[i+1])
		}
		assert.Equal(t, "completed", obs[7].State)

		obs, err = r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err)
		assert.Len(t, obs, 4, "call 2 is out of scope: %s", kinds(obs))
	})
	t.Run("same seed same sequence", func(t *testing.T) {
		t.Parallel()
		a := sequence(t, 11, "stream-duplicate-events:rate=0.5")
		b := sequence(t, 11, "stream-duplicate-events:rate=0.5")
		assert.Equal(t, a, b)
		n := len(strings.Fields(a))
		assert.Greater(t, n, 15, "some events doubled: %s", a)
		assert.Less(t, n, 30, "not all doubled: %s", a)
	})
}
