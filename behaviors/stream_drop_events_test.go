package behaviors_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/wire"
)

// behaviorsParse is behaviors.Parse returning the interface, for error tests.
func behaviorsParse(text string) (behaviors.Behavior, error) { return behaviors.Parse(text) }

func TestStreamDropEvents(t *testing.T) {
	t.Parallel()
	t.Run("rate 1 keeps only the end", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "stream-drop-events:rate=1,skill=s1"))
		obs, err := r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err)
		assert.Equal(t, "status:completed", kinds(obs))

		obs, err = r.streamMessage(wire.V10, "hi", "s2")
		require.NoError(t, err)
		assert.Len(t, obs, 4, "out of scope: %s", kinds(obs))
	})
	t.Run("terminal may go too", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "stream-drop-events:rate=1,terminal=true"))
		obs, err := r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err, "the stream still closes cleanly")
		assert.Empty(t, obs)
	})
	t.Run("same seed same sequence", func(t *testing.T) {
		t.Parallel()
		a := sequence(t, 7, "stream-drop-events:rate=0.5")
		b := sequence(t, 7, "stream-drop-events:rate=0.5")
		assert.Equal(t, a, b)
		n := len(strings.Fields(a))
		assert.Greater(t, n, 1, "some events kept: %s", a)
		assert.Less(t, n, 15, "some events dropped: %s", a)
		assert.True(t, strings.HasSuffix(a, "status:completed"))
	})
	t.Run("bad rate", func(t *testing.T) {
		t.Parallel()
		_, err := behaviorsParse("stream-drop-events:rate=1.5")
		require.Error(t, err)
	})
}
