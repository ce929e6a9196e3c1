package behaviors_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func TestResubscribeGap(t *testing.T) {
	t.Parallel()
	// The task is working with an artifact by the time the client
	// re-attaches, and completes a little later.
	tl := map[string]timeline.Timeline{"s1": {
		{Kind: timeline.StepState, State: wire.StateSubmitted},
		{Kind: timeline.StepState, State: wire.StateWorking},
		{Kind: timeline.StepArtifact, LastChunk: true, Artifact: &wire.Artifact{ArtifactID: "early", Parts: []wire.Part{wire.TextPart("x")}}},
		{Kind: timeline.StepState, State: wire.StateCompleted, After: 300 * time.Millisecond},
	}}
	r := newRig(t, rigOptions{timelines: tl}, parse(t, "resubscribe-gap:call=1"))
	resubscribe := func(id string) []observed {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := r.stream(ctx, "SubscribeToTask", map[string]any{"id": id})
		require.NoError(t, err)
		defer s.Close()
		obs, err := collect(t, s)
		require.NoError(t, err)
		return obs
	}
	first := r.send(wire.V10, "one", "s1", true)

	// Call 1: the snapshot is stale (submitted, no artifact) and the
	// artifact produced before re-attaching never shows up.
	obs := resubscribe(first)
	require.Len(t, obs, 2, kinds(obs))
	assert.Equal(t, "task:submitted status:completed", kinds(obs))
	assert.Zero(t, obs[0].Artifacts)
	// GetTask tells the truth the stream hid.
	rep := r.rpc("GetTask", map[string]any{"id": first})
	require.Nil(t, rep.Error)
	var got struct {
		Artifacts []struct {
			ArtifactID string `json:"artifactId"`
		} `json:"artifacts"`
	}
	require.NoError(t, json.Unmarshal(rep.Result, &got))
	require.Len(t, got.Artifacts, 1)
	assert.Equal(t, "early", got.Artifacts[0].ArtifactID)

	// Call 2 is out of scope: the snapshot is current. (The task is made
	// now, so that it is still working when the client re-attaches.)
	second := r.send(wire.V10, "two", "s1", true)
	obs = resubscribe(second)
	assert.Equal(t, "task:working status:completed", kinds(obs))
	assert.Equal(t, 1, obs[0].Artifacts)
}

func TestResubscribeGapDropsLiveEvents(t *testing.T) {
	t.Parallel()
	tl := map[string]timeline.Timeline{"s1": {
		{Kind: timeline.StepState, State: wire.StateSubmitted},
		{Kind: timeline.StepState, State: wire.StateWorking, After: 200 * time.Millisecond},
		{Kind: timeline.StepState, State: wire.StateCompleted, After: 50 * time.Millisecond},
	}}
	r := newRig(t, rigOptions{timelines: tl, dialect: wire.V03}, parse(t, "resubscribe-gap:state=submitted,drop=1"))
	id := r.send(wire.V03, "one", "s1", true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, "tasks/resubscribe", map[string]any{"id": id})
	require.NoError(t, err)
	defer s.Close()
	obs, err := collect(t, s)
	require.NoError(t, err)
	assert.Equal(t, "task:submitted status:completed:final", kinds(obs), "the working update is lost")

	_, err = behaviorsParse("resubscribe-gap:state=sleeping")
	require.Error(t, err)
}
