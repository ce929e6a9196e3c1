package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	v03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
)

// validFramings are the sse-framing variants that are valid SSE.
var validFramings = []string{"multiline-data", "event-field", "retry-field", "comments", "crlf", "split", "crlf|multiline-data|split"}

// jsHonest is the honest stream as probe.mjs reports it.
var jsHonest = []string{"task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}

// TestBehaviorSSEFraming: a2a-go v2 (both bindings), a2a-go v0.3 and
// @a2a-js/sdk read every valid framing; all three fail the stream on
// lf-only with a JSON error (the run-together events are one data value);
// all three accept an unterminated last event at EOF (nansen-cli#618's fix),
// which a strict reader would drop.
func TestBehaviorSSEFraming(t *testing.T) {
	t.Parallel()
	for _, v := range append(validFramings, "no-trailing-blank") {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			forEachV1Binding(t, func(t *testing.T, b v1Binding) {
				_, d := streamOnce(t, b, 901, 5*time.Second, "sse-framing:variant="+v)
				require.NoError(t, d.err)
				assert.Equal(t, honestKinds, kinds(d.events))
			})
		})
	}
	t.Run("lf-only", func(t *testing.T) {
		t.Parallel()
		forEachV1Binding(t, func(t *testing.T, b v1Binding) {
			_, d := streamOnce(t, b, 902, 5*time.Second, "sse-framing:variant=lf-only")
			assert.Empty(t, d.events)
			require.Error(t, d.err)
			assert.Contains(t, d.err.Error(), "invalid character '{' after top-level value")
		})
	})
}

// TestBehaviorSSEFramingV03: a2a-go v0.3.15 reads SSE line by line, each
// data: line being one event. So it fails on multiline-data, valid SSE, and
// accepts lf-only, which is not.
func TestBehaviorSSEFramingV03(t *testing.T) {
	t.Parallel()
	for _, v := range append(validFramings, "no-trailing-blank", "lf-only") {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			ac := v03Agent("legacy", 903)
			ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse("sse-framing:variant="+v)))
			s := startMock(t, server.Config{Seed: 903, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
			c, _ := v03Client(t, s.URL())
			var events []v03.Event
			var err error
			for ev, e := range c.SendStreamingMessage(testCtx(t), &v03.MessageSendParams{Message: v03Text("stream it")}) {
				if e != nil {
					err = e
					break
				}
				events = append(events, ev)
			}
			if strings.Contains(v, "multiline-data") {
				// a2a-go v0.3.15 parses every data: line as its own JSON
				// document (a2a-java#841's bug): the first line, "{", fails.
				assert.Empty(t, events)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "failed to parse SSE data: unexpected end of JSON input")
				return
			}
			// The same line-by-line reader accepts lf-only, where a
			// conforming reader sees one run-together event.
			require.NoError(t, err)
			require.Len(t, events, 4)
			assert.Equal(t, v03.TaskStateCompleted, v03State(events[3]))
		})
	}
}

func TestBehaviorSSEFramingJS(t *testing.T) {
	t.Parallel()
	for _, v := range append(validFramings, "no-trailing-blank", "lf-only") {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			m := behaviorMock(t, 904, 5*time.Millisecond, testkit.WithBehavior("", "sse-framing:variant="+v))
			for _, tr := range jsTransports {
				r := jsProbe(t, m.URL, tr, "stream")
				if v == "lf-only" {
					assert.Empty(t, r.Events, tr)
					if assert.NotNil(t, r.Error, tr) {
						assert.Contains(t, r.Error.Message, "Failed to parse SSE event data", tr)
					}
					continue
				}
				assert.Nil(t, r.Error, "%s: %s", tr, r.Raw)
				assert.True(t, r.Ended, tr)
				assert.Equal(t, jsHonest, r.eventKinds(), tr)
			}
		})
	}
}

// TestBehaviorBufferedBurst: both SDKs read a burst of every event of the
// stream in one chunk correctly; they just see nothing until the end.
func TestBehaviorBufferedBurst(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		start := time.Now()
		_, d := streamOnce(t, b, 961, 5*time.Second, "slow-stream:delay=100ms", "buffered-burst")
		require.NoError(t, d.err)
		assert.Equal(t, honestKinds, kinds(d.events))
		assert.GreaterOrEqual(t, time.Since(start), 400*time.Millisecond)
	})
	m := behaviorMock(t, 962, 5*time.Millisecond, testkit.WithBehavior("", "buffered-burst"))
	for _, tr := range jsTransports {
		r := jsProbe(t, m.URL, tr, "stream")
		require.Nil(t, r.Error, r.Raw)
		assert.Equal(t, jsHonest, r.eventKinds(), tr)
	}
}

// TestBehaviorIdleGap: neither SDK has an idle timeout of its own. a2a-go v2
// waits through the silence for as long as the caller's context allows
// (then fails with the context's error, after the events before the gap);
// @a2a-js/sdk likewise, bounded only by the caller's AbortSignal.
func TestBehaviorIdleGap(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		_, d := streamOnce(t, b, 971, 5*time.Second, "idle-gap:after=2,gap=1s")
		require.NoError(t, d.err, "a 1s silence is waited out")
		assert.Equal(t, honestKinds, kinds(d.events))

		_, d = streamOnce(t, b, 972, 1500*time.Millisecond, "idle-gap:after=2,gap=5s")
		assert.Equal(t, honestKinds[:2], kinds(d.events))
		assert.ErrorIs(t, d.err, context.DeadlineExceeded)
	})
	m := behaviorMock(t, 973, 5*time.Millisecond, testkit.WithBehavior("", "idle-gap:after=2,gap=1s"))
	long := behaviorMock(t, 974, 5*time.Millisecond, testkit.WithBehavior("", "idle-gap:after=2,gap=5s"))
	for _, tr := range jsTransports {
		r := jsProbe(t, m.URL, tr, "stream")
		require.Nil(t, r.Error, r.Raw)
		assert.Equal(t, jsHonest, r.eventKinds(), tr)
		r = jsProbeEnv(t, []string{"PROBE_TIMEOUT_MS=1500"}, long.URL, tr, "stream")
		assert.Equal(t, jsHonest[:2], r.eventKinds(), tr)
		if assert.NotNil(t, r.Error, tr) {
			assert.Equal(t, "TimeoutError", r.Error.Name, "%+v", r.Error)
		}
	}
}
