package behaviors_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// spacedTimeline is a task whose steps are 'gap' apart, so an honest
// stream delivers its events spread over time and keep-alives in between.
func spacedTimeline(gap time.Duration) map[string]timeline.Timeline {
	return map[string]timeline.Timeline{"s1": {
		{Kind: timeline.StepState, State: wire.StateSubmitted},
		{Kind: timeline.StepState, State: wire.StateWorking, After: gap},
		{Kind: timeline.StepArtifact, After: gap, LastChunk: true, Artifact: &wire.Artifact{ArtifactID: "a1", Parts: []wire.Part{wire.TextPart("x")}}},
		{Kind: timeline.StepState, State: wire.StateCompleted, After: gap},
	}}
}

// arrivals streams one message and returns when each event arrived,
// relative to the request, and the stream's raw keep-alive count.
func arrivals(t *testing.T, r *rig) []time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	s, err := r.stream(ctx, "SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	defer s.Close()
	var at []time.Duration
	for _, err := range s.Events() {
		require.NoError(t, err)
		at = append(at, time.Since(start))
	}
	return at
}

func TestBufferedBurst(t *testing.T) {
	t.Parallel()
	gap := 80 * time.Millisecond
	r := newRig(t, rigOptions{timelines: spacedTimeline(gap), keepAlive: 10 * time.Millisecond}, parse(t, "buffered-burst:call=1"))
	at := arrivals(t, r)
	require.Len(t, at, 4)
	assert.GreaterOrEqual(t, at[0], 3*gap, "nothing before the task ended: %v", at)
	assert.Less(t, at[3]-at[0], gap/2, "all four in one burst: %v", at)

	// The buffer swallowed the keep-alives the agent wrote meanwhile, and
	// the events are the honest ones.
	r2 := newRig(t, rigOptions{timelines: spacedTimeline(gap), keepAlive: 10 * time.Millisecond}, parse(t, "buffered-burst"))
	_, body, err := r2.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "keep-alive")
	assert.Equal(t, 4, strings.Count(string(body), "data: "))

	// Call 2 is out of scope: events are spread out, keep-alives between.
	at = arrivals(t, r)
	require.Len(t, at, 4)
	assert.Greater(t, at[3]-at[0], 2*gap, "honest stream: %v", at)
}
