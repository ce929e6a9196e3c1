package behaviors_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestStreamReorderEvents(t *testing.T) {
	t.Parallel()
	t.Run("rate 1 swaps working and the artifact", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "stream-reorder-events:rate=1,skill=s1"))
		obs, err := r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err)
		require.Len(t, obs, 4)
		assert.Equal(t, "task:submitted artifact:"+obs[1].ArtifactID+" status:working status:completed", kinds(obs))

		obs, err = r.streamMessage(wire.V10, "hi", "s2")
		require.NoError(t, err)
		assert.Equal(t, "task:submitted status:working artifact:"+obs[2].ArtifactID+" status:completed", kinds(obs))
	})
	t.Run("same seed same sequence, nothing lost", func(t *testing.T) {
		t.Parallel()
		a := sequence(t, 3, "stream-reorder-events:rate=0.5")
		b := sequence(t, 3, "stream-reorder-events:rate=0.5")
		assert.Equal(t, a, b)
		honest := sequence(t, 3, "stream-reorder-events:rate=0")
		assert.NotEqual(t, honest, a, "some events swapped")
		got, want := strings.Fields(a), strings.Fields(honest)
		slices.Sort(got)
		slices.Sort(want)
		assert.Equal(t, want, got, "the same events, in another order")
	})
}
