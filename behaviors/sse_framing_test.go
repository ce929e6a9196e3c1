package behaviors_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/sse"
)

// framedStream streams one message through a rig with the sse-framing
// variant and returns the raw body and what the project's own SSE reader
// (a conforming one) makes of it.
func framedStream(t *testing.T, spec string) (body []byte, obs []observed, err error) {
	t.Helper()
	r := newRig(t, rigOptions{keepAlive: 10e9}, parse(t, spec))
	_, body, err = r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	for ev, rerr := range sse.Read(context.Background(), bytes.NewReader(body)) {
		if rerr != nil {
			return body, obs, rerr
		}
		obs = append(obs, observe(t, ev.Data, true))
	}
	return body, obs, nil
}

const honestStream = "task:submitted status:working artifact:" // + artifact id, then completed

func assertHonest(t *testing.T, obs []observed) {
	t.Helper()
	require.Len(t, obs, 4, "%s", kinds(obs))
	assert.True(t, strings.HasPrefix(kinds(obs), honestStream), "%s", kinds(obs))
	assert.Equal(t, "completed", obs[3].State)
}

func TestSSEFramingValidVariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		variant string
		check   func(t *testing.T, body string)
	}{
		{"multiline-data", func(t *testing.T, body string) {
			assert.Greater(t, strings.Count(body, "data: "), 4*5, "each event spans many data: lines")
		}},
		{"event-field", func(t *testing.T, body string) {
			assert.Equal(t, 4, strings.Count(body, "event: message\n"))
			assert.Contains(t, body, "id: 1\n")
			assert.Contains(t, body, "id: 4\n")
		}},
		{"retry-field", func(t *testing.T, body string) { assert.Equal(t, 4, strings.Count(body, "retry: 3000\n")) }},
		{"comments", func(t *testing.T, body string) { assert.Equal(t, 4, strings.Count(body, ": keep-alive\n\n")) }},
		{"crlf", func(t *testing.T, body string) {
			assert.Equal(t, 4, strings.Count(body, "\r\n\r\n"))
			assert.Equal(t, strings.Count(body, "\n"), strings.Count(body, "\r\n"), "every line ends in CRLF")
		}},
		{"split", func(t *testing.T, body string) { assert.Equal(t, 4, strings.Count(body, "\n\n")) }},
		{"crlf|multiline-data|event-field|comments|split", func(t *testing.T, body string) {
			assert.Contains(t, body, "event: message\r\n")
		}},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			body, obs, err := framedStream(t, "sse-framing:variant="+tc.variant)
			require.NoError(t, err, "%q", body)
			assertHonest(t, obs)
			tc.check(t, string(body))
		})
	}
}

func TestSSEFramingLFOnly(t *testing.T) {
	t.Parallel()
	body, obs, err := framedStream(t, "sse-framing:variant=lf-only")
	assert.NotContains(t, string(body), "\n\n", "no event is ever dispatched")
	assert.Equal(t, 4, strings.Count(string(body), "data: "))
	// A conforming reader sees no complete event: the four run together
	// until the end of input, which cuts them off.
	assert.Empty(t, obs)
	var te *sse.TruncatedError
	require.ErrorAs(t, err, &te)
}

func TestSSEFramingNoTrailingBlank(t *testing.T) {
	t.Parallel()
	body, obs, err := framedStream(t, "sse-framing:variant=no-trailing-blank")
	assert.False(t, bytes.HasSuffix(body, []byte("\n\n")))
	assert.True(t, bytes.HasSuffix(body, []byte("}\n")))
	assert.Equal(t, "task:submitted status:working", kinds(obs[:2]))
	assert.Len(t, obs, 3, "the last event is never dispatched")
	var te *sse.TruncatedError
	require.ErrorAs(t, err, &te, "a conforming reader reports the cut, not a clean end")
}

func TestSSEFramingScope(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "sse-framing:variant=event-field,call=2"))
	_, body, err := r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "event:", "call 1 is out of scope")
	_, body, err = r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Contains(t, string(body), "event: message")
	// Unary answers are never framed.
	_, body, err = r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "data:")
}

func TestSSEFramingSplitIsSeeded(t *testing.T) {
	t.Parallel()
	cuts := func(seed uint64) []int {
		return core.CutPoints(rand.New(rand.NewPCG(seed, 1)), 200, 10, 5)
	}
	a := cuts(7)
	assert.Equal(t, a, cuts(7), "same seed, same cuts")
	assert.NotEqual(t, a, cuts(8))
	require.Len(t, a, 4)
	assert.True(t, slices.ContainsFunc(a, func(c int) bool { return c > 10 && c < 15 }), "a cut inside \"data:\" at 10: %v", a)
	assert.IsIncreasing(t, a)
	// Every variant still carries the honest events, whatever the seed.
	assert.Equal(t, sequence(t, 7, "sse-framing:variant=split,gap=0s"), sequence(t, 7, "sse-framing:variant=crlf"))
}

func TestSSEFramingRejectsBadParams(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"sse-framing:variant=bogus", "sse-framing:variant=split,pieces=1", "sse-framing:event=", "sse-framing:gap=-1s"} {
		_, err := behaviorsParse(spec)
		assert.Error(t, err, spec)
	}
}

// A pieces value above the event's length cuts at every byte at most, and
// quickly: the draw used to go on for 4*pieces tries once every offset was
// taken, so pieces=1000000000 spun a CPU for minutes per event (after the
// client had left, too) and the stream sent nothing.
func TestSSEFramingSplitPiecesBeyondLength(t *testing.T) {
	t.Parallel()
	done := make(chan []int, 1)
	go func() { done <- core.CutPoints(rand.New(rand.NewPCG(7, 1)), 40, 10, 1_000_000_000) }()
	select {
	case cuts := <-done:
		assert.LessOrEqual(t, len(cuts), 39, "at most one cut per byte")
		assert.IsIncreasing(t, cuts)
	case <-time.After(5 * time.Second):
		t.Fatal("CutPoints with pieces far above the length did not return")
	}
	body, obs, err := framedStream(t, "sse-framing:variant=split,pieces=1000000000,gap=0s")
	require.NoError(t, err)
	assertHonest(t, obs)
	assert.NotEmpty(t, body)
}
