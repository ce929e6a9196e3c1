package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestStreamNoFinal(t *testing.T) {
	t.Parallel()
	t.Run("v0.3 last status has final false", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{dialect: wire.V03}, parse(t, "stream-no-final:skill=s1"))
		obs, err := r.streamMessage(wire.V03, "hi", "s1")
		require.NoError(t, err, "the stream closes cleanly")
		require.NotEmpty(t, obs)
		last := obs[len(obs)-1]
		assert.Equal(t, "status", last.Kind)
		assert.Equal(t, "completed", last.State)
		require.NotNil(t, last.Final)
		assert.False(t, *last.Final, "the terminal status must not carry final:true")
		for _, o := range obs {
			if o.Final != nil {
				assert.False(t, *o.Final, "no event is final: %s", kinds(obs))
			}
		}

		// Another skill is out of scope: its stream ends with final:true.
		obs, err = r.streamMessage(wire.V03, "hi", "s2")
		require.NoError(t, err)
		last = obs[len(obs)-1]
		assert.Equal(t, "completed", last.State)
		require.NotNil(t, last.Final)
		assert.True(t, *last.Final)
	})
	t.Run("v1.0 terminal event never sent", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "stream-no-final:call=1"))
		obs, err := r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err)
		assert.Equal(t, "task:submitted status:working artifact:"+obs[2].ArtifactID, kinds(obs))
		for _, o := range obs {
			assert.NotEqual(t, "completed", o.State)
		}
		// The task did complete: only the stream lied.
		rep := r.rpc("GetTask", map[string]any{"id": obs[0].TaskID})
		require.Nil(t, rep.Error)
		assert.Contains(t, string(rep.Result), "TASK_STATE_COMPLETED")

		// The second stream is out of scope (call=1) and honest.
		obs, err = r.streamMessage(wire.V10, "again", "s1")
		require.NoError(t, err)
		assert.Equal(t, "completed", obs[len(obs)-1].State)
	})
}
