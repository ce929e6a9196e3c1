package behaviors_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestIdleGap(t *testing.T) {
	t.Parallel()
	gap := 300 * time.Millisecond
	r := newRig(t, rigOptions{keepAlive: 10 * time.Millisecond}, parse(t, "idle-gap:after=2,gap=300ms,call=1"))
	at := arrivals(t, r)
	require.Len(t, at, 4)
	// Measured from the request, which the silence follows: the gap between
	// two client-side arrivals can read a little short when the earlier
	// one was read late.
	assert.GreaterOrEqual(t, at[2], gap, "silence after two events: %v", at)
	assert.Less(t, at[1], gap/2)

	// No keep-alive during the silence: nothing at all is written.
	r2 := newRig(t, rigOptions{keepAlive: 10 * time.Millisecond}, parse(t, "idle-gap:after=1,gap=200ms"))
	_, body, err := r2.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "keep-alive")
	assert.Equal(t, 4, strings.Count(string(body), "data: "))

	at = arrivals(t, r)
	require.Len(t, at, 4)
	assert.Less(t, at[3], gap, "call 2 is out of scope: %v", at)
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
