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

func TestIdleGap(t *testing.T) {
	t.Parallel()
	// On the fake clock the honest lifecycle takes no time, so the only
	// wait on the stream is the behavior's silence. The keep-alive is a day
	// away: a shorter one would be a timer due within the gap, and the
	// test could advance the clock before the silence had begun (the
	// keep-alive's absence is checked below, on the wall clock).
	gap := 5 * time.Minute
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newRig(t, rigOptions{keepAlive: 24 * time.Hour, clock: clk}, parse(t, "idle-gap:after=2,gap=5m,call=1"))
	events := liveEvents(t, r)
	for i := 1; i <= 2; i++ {
		_, ok := next(t, events)
		require.True(t, ok, "event %d comes before the silence", i)
	}
	blockUntilDue(t, clk, gap) // the silence has begun
	nothingYet(t, events, "nothing during the silence")
	clk.Advance(gap)
	rest := untilEnd(t, events)
	require.Len(t, rest, 2, "the rest of the stream after the silence")
	assert.Contains(t, rest[1], "TASK_STATE_COMPLETED")
	assert.Equal(t, "idle-gap", firstActed(lastRequestEntry(t, r)))

	// No keep-alive during the silence: nothing at all is written, though
	// the silence lasts five keep-alive intervals, each one passed on the
	// fake clock. (On the wall clock with a 10ms keep-alive, one could come
	// legitimately before the silence began: 1 failure in 200 runs.)
	clk2 := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r2 := newRig(t, rigOptions{keepAlive: time.Minute, clock: clk2}, parse(t, "idle-gap:after=1,gap=5m"))
	type answer struct {
		body []byte
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		_, body, err := r2.raw("SendStreamingMessage", sendParams("hi"))
		got <- answer{body, err}
	}()
	// The silence has begun when the only timer waiting is the gap's: the
	// stream's one-minute keep-alive waits whenever the stream does.
	probe, cancelProbe := context.WithCancel(context.Background())
	cancelProbe()
	dueWithin := func(d time.Duration) bool { return clk2.BlockUntilDue(probe, d) == nil }
	require.Eventually(t, func() bool { return clk2.Waiters() == 1 && dueWithin(gap) && !dueWithin(gap-time.Minute) },
		10*time.Second, time.Millisecond, "the silence never began")
	for range 5 {
		clk2.Advance(time.Minute)
	}
	var a answer
	select {
	case a = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end after the silence")
	}
	require.NoError(t, a.err)
	assert.NotContains(t, string(a.body), "keep-alive")
	assert.Equal(t, 4, strings.Count(string(a.body), "data: "))

	// Call 2 is out of scope: the whole stream comes without the clock
	// moving.
	assert.Len(t, untilEnd(t, liveEvents(t, r)), 4, "call 2: every event without a silence")
	out := lastRequestEntry(t, r)
	assert.Empty(t, out.Behaviors, "call 2 is out of scope")
}

func TestIdleGapEndsWhenClientLeaves(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "idle-gap:after=1,gap=1h"))
	obs, err := r.streamUpTo(wire.V10, message(wire.V10, "hi", "s1", ""), 1)
	require.NoError(t, err)
	assert.Len(t, obs, 1, "the client leaves during the silence; goleak checks the handler ended")
	_, err = behaviorsParse("idle-gap:gap=-1s")
	assert.Error(t, err)
}
