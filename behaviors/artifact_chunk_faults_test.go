package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func artifacts(obs []observed) []observed {
	var out []observed
	for _, o := range obs {
		if o.Kind == "artifact" {
			out = append(out, o)
		}
	}
	return out
}

func TestArtifactChunkFaults(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{dialect: wire.V03}, parse(t, "artifact-chunk-faults:skill=s1"))
	obs, err := r.streamMessage(wire.V03, "hi", "s1")
	require.NoError(t, err)
	arts := artifacts(obs)
	require.Len(t, arts, 1, kinds(obs))
	assert.True(t, arts[0].Append, "append to an artifact never sent")
	assert.False(t, arts[0].LastChunk, "lastChunk never sent")
	assert.Equal(t, "completed", obs[len(obs)-1].State)

	obs, err = r.streamMessage(wire.V03, "hi", "s2")
	require.NoError(t, err)
	arts = artifacts(obs)
	require.Len(t, arts, 1)
	assert.False(t, arts[0].Append)
	assert.True(t, arts[0].LastChunk)
}

func TestArtifactChunkFaultsOneAtATime(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{timelines: longTimeline(2)}, parse(t, "artifact-chunk-faults:fault=no-last-chunk"))
	obs, err := r.streamMessage(wire.V10, "hi", "s1")
	require.NoError(t, err)
	arts := artifacts(obs)
	require.Len(t, arts, 2)
	for _, a := range arts {
		assert.False(t, a.Append)
		assert.False(t, a.LastChunk)
	}
	_, err = behaviorsParse("artifact-chunk-faults:fault=wrong-mime")
	require.Error(t, err)
}
