package behaviors_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
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

// liveEvents streams one message and hands each event's data to the
// returned channel as it arrives; the channel closes when the stream ends.
// The stream is closed at cleanup; a test that hangs fails after a minute.
func liveEvents(t *testing.T, r *rig) <-chan string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	s, err := r.stream(ctx, "SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	out := make(chan string, 8)
	go func() {
		defer close(out)
		for ev, err := range s.Events() {
			if err != nil {
				return
			}
			out <- string(ev.Data)
		}
	}()
	return out
}

// next waits for the next event (failing after ten seconds of wall time
// instead of hanging) and says whether the stream was still open.
func next(t *testing.T, events <-chan string) (string, bool) {
	t.Helper()
	select {
	case ev, ok := <-events:
		return ev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no event and no end of stream within 10s")
		return "", false
	}
}

// untilEnd collects the events until the stream ends.
func untilEnd(t *testing.T, events <-chan string) []string {
	t.Helper()
	var out []string
	for {
		ev, ok := next(t, events)
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

// nothingYet asserts that no event has arrived. It cannot fail a correct
// implementation: the events it rules out wait on the fake clock.
func nothingYet(t *testing.T, events <-chan string, why string) {
	t.Helper()
	select {
	case ev, ok := <-events:
		t.Errorf("%s, but got event %q (open=%v)", why, ev, ok)
	default:
	}
}

// lastRequestEntry is the journal's newest request entry.
func lastRequestEntry(t *testing.T, r *rig) server.Entry {
	t.Helper()
	reqs := r.srv.Journal().Filter(0, "", "", server.EntryRequest)
	require.NotEmpty(t, reqs)
	return reqs[len(reqs)-1]
}

func TestBufferedBurst(t *testing.T) {
	t.Parallel()
	// On the fake clock the task's steps are a minute apart; the agent
	// writes each event when its step is played, the buffer in front holds
	// them all until the task's final state.
	gap := time.Minute
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newRig(t, rigOptions{timelines: spacedTimeline(gap), keepAlive: 24 * time.Hour, clock: clk}, parse(t, "buffered-burst:call=1"))
	events := liveEvents(t, r)
	for step := 1; step <= 3; step++ {
		blockUntilDue(t, clk, gap) // the player waits for the next step
		nothingYet(t, events, fmt.Sprintf("nothing may arrive before the task ended (step %d of 3 not yet played)", step))
		clk.Advance(gap)
	}
	got := untilEnd(t, events)
	require.Len(t, got, 4, "all four events in one burst after the final state")
	assert.Contains(t, got[3], "TASK_STATE_COMPLETED")
	assert.Equal(t, "buffered-burst", firstActed(lastRequestEntry(t, r)))

	// The buffer swallowed the keep-alives the agent wrote meanwhile, and
	// the events are the honest ones.
	r2 := newRig(t, rigOptions{timelines: spacedTimeline(80 * time.Millisecond), keepAlive: 10 * time.Millisecond}, parse(t, "buffered-burst"))
	_, body, err := r2.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "keep-alive")
	assert.Equal(t, 4, strings.Count(string(body), "data: "))

	// Call 2 is out of scope: each event arrives as its step is played.
	events = liveEvents(t, r)
	_, ok := next(t, events) // the Task, written at once
	require.True(t, ok)
	for step := 1; step <= 3; step++ {
		blockUntilDue(t, clk, gap)
		nothingYet(t, events, "call 2: the next event waits for its step")
		clk.Advance(gap)
		_, ok := next(t, events)
		require.True(t, ok, "call 2: step %d's event arrives when it is played", step)
	}
	out := lastRequestEntry(t, r)
	assert.Empty(t, out.Behaviors, "call 2 is out of scope")
}

// firstActed names the first behavior the entry says acted ("" if none).
func firstActed(e server.Entry) string {
	if len(e.Behaviors) == 0 {
		return ""
	}
	name, _, _ := strings.Cut(e.Behaviors[0], ":")
	return name
}
