package interop

import (
	"fmt"
	"testing"
	"time"

	"github.com/a2amock/a2amock/wire"
	v03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/timeline"
)

// TestBehaviorContentType: neither a2a-go v2 nor @a2a-js/sdk looks at the
// Content-Type of a unary answer (text/plain, application/json and
// application/a2a+json are all read as JSON). On streams they differ: the
// JS SDK refuses anything but text/event-stream with an error, while
// a2a-go v2 reads a stream under application/json as usual and, given one
// JSON body instead of events, yields zero events and no error.
func TestBehaviorContentType(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"content-type", "content-type:type=application/json", "content-type:type=application/a2a+json"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			m := behaviorMock(t, 911, 5*time.Millisecond, testkit.WithBehavior("", spec))
			forEachV1Binding(t, func(t *testing.T, b v1Binding) {
				c, _ := v1Client(t, m.URL, b)
				task := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("x")})
				assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
			})
			for _, tr := range jsTransports {
				r := jsProbe(t, m.URL, tr, "send")
				require.Nil(t, r.Error, "%s: %s", tr, r.Raw)
				assert.Equal(t, "TASK_STATE_COMPLETED", r.Result.State, tr)
			}
		})
	}
	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		for _, spec := range []string{"content-type:stream=type,type=application/json", "content-type:stream=json,type=application/json"} {
			m := behaviorMock(t, 912, 5*time.Millisecond, testkit.WithBehavior("", spec))
			forEachV1Binding(t, func(t *testing.T, b v1Binding) {
				c, _ := v1Client(t, m.URL, b)
				d := drain(c.SendStreamingMessage(shortCtx(t, 5*time.Second), &a2a.SendMessageRequest{Message: userText("x")}))
				require.NoError(t, d.err, "a2a-go v2 does not check the stream's Content-Type")
				if spec == "content-type:stream=type,type=application/json" {
					assert.Equal(t, honestKinds, kinds(d.events))
				} else {
					assert.Empty(t, d.events, "one JSON body: no data: line, so no event, and no error")
				}
			})
			for _, tr := range jsTransports {
				r := jsProbe(t, m.URL, tr, "stream")
				assert.Empty(t, r.Events, tr)
				if assert.NotNil(t, r.Error, tr) {
					assert.Contains(t, r.Error.Message, "Expected 'text/event-stream'", tr)
				}
			}
		}
	})
}

// TestBehaviorErrorDataShape asks each SDK for an unknown task while the
// mock's JSON-RPC error.data has each shape, and records whether the SDK
// still types the error as task-not-found. a2a-go v2 (and its v0.3 compat
// client) decodes data only as a list, a2a-go v0.3.15 only as an object:
// any other shape turns the typed error into a decode failure. data being
// absent is fine for both. @a2a-js/sdk types every shape.
func TestBehaviorErrorDataShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		shape               string
		v2, v03, compat, js bool // typed as task not found
	}{
		{"object", false, true, false, true},
		{"list", true, false, true, true},
		{"string", false, false, false, true},
		{"absent", true, true, true, true},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			t.Parallel()
			spec := "error-data-shape:shape=" + tc.shape
			m := behaviorMock(t, 921, 5*time.Millisecond, testkit.WithBehavior("", spec))
			c, _ := v1Client(t, m.URL, v1Bindings[0])
			_, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: "nope"})
			require.Error(t, err)
			assertTyped(t, "a2a-go v2", err, a2a.ErrTaskNotFound, tc.v2)

			r := jsProbe(t, m.URL, "JSONRPC", "get", "nope")
			require.NotNil(t, r.Error, r.Raw)
			assert.Equal(t, tc.js, r.Error.Name == "TaskNotFoundError", "@a2a-js/sdk: %+v", r.Error)

			ac := v03Agent("legacy", 922)
			ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse(spec)))
			s := startMock(t, server.Config{Seed: 922, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
			c3, _ := v03Client(t, s.URL())
			_, err = c3.GetTask(testCtx(t), &v03.TaskQueryParams{ID: "nope"})
			require.Error(t, err)
			assertTyped(t, "a2a-go v0.3", err, v03.ErrTaskNotFound, tc.v03)

			cc := compatClient(t, s.URL())
			_, err = cc.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: "nope"})
			require.Error(t, err)
			assertTyped(t, "a2a-go v2 a2av0", err, a2a.ErrTaskNotFound, tc.compat)
		})
	}
}

// assertTyped checks that err is (typed) or is not (a decode failure)
// target.
func assertTyped(t *testing.T, sdk string, err, target error, typed bool) {
	t.Helper()
	if typed {
		assert.ErrorIs(t, err, target, sdk)
		return
	}
	assert.NotErrorIs(t, err, target, sdk)
	assert.Contains(t, err.Error(), "failed to decode response", sdk)
}

// compatClient is a2a-go v2 reaching a v0.3 agent through a2acompat/a2av0.
func compatClient(t *testing.T, base string) *a2aclient.Client {
	t.Helper()
	hc := httpClient(t)
	card, err := (&agentcard.Resolver{Client: hc, CardParser: a2av0.NewAgentCardParser()}).Resolve(testCtx(t), base)
	require.NoError(t, err)
	c, err := a2aclient.NewFromCard(testCtx(t), card, a2aclient.WithDefaultsDisabled(),
		a2aclient.WithCompatTransport("0.3", a2a.TransportProtocolJSONRPC, a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: hc})))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// TestBehaviorRESTErrorDialect asks each SDK over HTTP+JSON for an unknown
// task (404) while the error body is in each dialect. Both SDKs type an
// error only from google.rpc.Status details: they never fall back to the
// HTTP status, and they believe an ErrorInfo.reason that contradicts it.
// a2a-go v2 reports problem+json as a bare "server error" and a string body
// as a decode failure; the JS SDK keeps at least the status line.
func TestBehaviorRESTErrorDialect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode     string
		goTarget error  // a2a-go v2: the error it types, nil for none
		goText   string // a2a-go v2: a part of its message
		jsName   string
		jsText   string
	}{
		{"problem", nil, "server error", "A2AError", "404 Not Found"},
		{"string", nil, "failed to decode error response", "A2AError", "404 Not Found"},
		{"no-details", nil, "task not found: nope", "A2AError", "task not found: nope"},
		{"reason-mismatch", a2a.ErrUnsupportedOperation, "task not found: nope", "UnsupportedOperationError", "task not found: nope"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			m := behaviorMock(t, 931, 5*time.Millisecond, testkit.WithBehavior("", "rest-error-dialect:mode="+tc.mode))
			c, _ := v1Client(t, m.URL, v1Bindings[1])
			_, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: "nope"})
			require.Error(t, err)
			assert.NotErrorIs(t, err, a2a.ErrTaskNotFound, "the 404 alone does not make a task-not-found")
			if tc.goTarget != nil {
				assert.ErrorIs(t, err, tc.goTarget)
			}
			assert.Contains(t, err.Error(), tc.goText)

			r := jsProbe(t, m.URL, "HTTP+JSON", "get", "nope")
			require.NotNil(t, r.Error, r.Raw)
			assert.Equal(t, tc.jsName, r.Error.Name)
			assert.Contains(t, r.Error.Message, tc.jsText)
		})
	}
}

// TestBehaviorSendResultEnvelope: a v1.0 SendMessage answered with a bare
// Task (with or without kind) is refused by both SDKs on both bindings,
// with an error, not read as an empty result.
func TestBehaviorSendResultEnvelope(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"send-result-envelope", "send-result-envelope:kind=true"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			m := behaviorMock(t, 941, 5*time.Millisecond, testkit.WithBehavior("", spec))
			forEachV1Binding(t, func(t *testing.T, b v1Binding) {
				c, _ := v1Client(t, m.URL, b)
				res, err := c.SendMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("x")})
				assert.Nil(t, res)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "could not determine type: unknown event type")
			})
			want := map[string]string{"JSONRPC": "Invalid response: missing payload", "HTTP+JSON": "Invalid SendMessageResponse: missing result"}
			for _, tr := range jsTransports {
				r := jsProbe(t, m.URL, tr, "send")
				assert.Nil(t, r.Result, tr)
				if assert.NotNil(t, r.Error, tr) {
					assert.Equal(t, want[tr], r.Error.Message)
				}
			}
		})
	}
}

// TestBehaviorListPaginationLoop: neither SDK pages by itself; both hand
// the repeated nextPageToken to the caller as if the listing advanced. The
// JS probe follows tokens for five pages and gets page 1 five times;
// AssertNoPageTokenLoop flags exactly that from the journal.
func TestBehaviorListPaginationLoop(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 951, -1, testkit.WithBehavior("", "list-pagination-loop"))
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		c, _ := v1Client(t, m.URL, b)
		for range 2 {
			sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("x")})
		}
		first, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{PageSize: 1})
		require.NoError(t, err)
		require.NotEmpty(t, first.NextPageToken)
		second, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{PageSize: 1, PageToken: first.NextPageToken})
		require.NoError(t, err, "no error for a page that does not advance")
		assert.Equal(t, first.NextPageToken, second.NextPageToken)
		assert.Equal(t, first.Tasks[0].ID, second.Tasks[0].ID)
	})
	t.Run("js", func(t *testing.T) {
		t.Parallel()
		m := behaviorMock(t, 952, -1, testkit.WithBehavior("", "list-pagination-loop"))
		for _, tr := range jsTransports {
			r := jsProbe(t, m.URL, tr, "send")
			require.Nil(t, r.Error, r.Raw)
			r = jsProbe(t, m.URL, tr, "send")
			require.Nil(t, r.Error, r.Raw)
			r = jsProbe(t, m.URL, tr, "list")
			require.Nil(t, r.Error, r.Raw)
			require.Len(t, r.Pages, 5, "the probe stopped at its own bound, not the SDK's")
			for _, p := range r.Pages {
				assert.Equal(t, r.Pages[0], p)
			}
		}
		rt := &failRecorder{}
		assert.False(t, testkit.AssertNoPageTokenLoop(rt, m.Journal()))
		assert.Contains(t, rt.msg, "ListTasks followed a nextPageToken that repeated")
	})
}

// failRecorder is an assert.TestingT that keeps the failure message.
type failRecorder struct{ msg string }

func (f *failRecorder) Errorf(format string, args ...any) { f.msg += fmt.Sprintf(format, args...) }

// TestBehaviorDuplicateOnRetry: an application that resends the same
// message object (same messageId) through either SDK gets the first task
// back from the honest mock, and a second task under duplicate-on-retry;
// neither SDK resends on its own.
func TestBehaviorDuplicateOnRetry(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "duplicate-on-retry"} {
		t.Run("spec="+spec, func(t *testing.T) {
			t.Parallel()
			var opts []testkit.Option
			if spec != "" {
				opts = append(opts, testkit.WithBehavior("", spec))
			}
			m := behaviorMock(t, 981, -1, opts...)
			for _, b := range v1Bindings {
				c, _ := v1Client(t, m.URL, b)
				msg := userText("charge it")
				first := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: msg})
				again := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: msg})
				assert.Equal(t, spec == "", first.ID == again.ID, "%s: %s vs %s", b.name, first.ID, again.ID)
			}
			for _, tr := range jsTransports {
				r := jsProbe(t, m.URL, tr, "retry")
				require.Nil(t, r.Error, r.Raw)
				require.Len(t, r.Pages, 2)
				assert.Equal(t, spec == "", r.Pages[0][0] == r.Pages[1][0], "%s: %v", tr, r.Pages)
			}
			assert.Equal(t, 8, sends(m, "send"), "every send reached the mock once")
			assert.True(t, testkit.AssertRetryReusedMessageID(t, m.Journal()))
		})
	}
}

// TestBehaviorSubscribeMethod: a2a-go v2 and @a2a-js/sdk both subscribe
// over HTTP+JSON with POST /tasks/{id}:subscribe and never try another
// method or path: a GET-only agent (the proto's reading) or a legacy-path
// agent fails the subscription with the agent's error; a POST-only one
// works.
func TestBehaviorSubscribeMethod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ serve, err string }{
		{"get", "POST is not allowed on"},
		{"post", ""},
		{"legacy", "no HTTP+JSON route POST"},
	} {
		t.Run(tc.serve, func(t *testing.T) {
			t.Parallel()
			// The task works for 3s, so a subscription (the JS probe's
			// node start included) always finds it running.
			m := behaviorMock(t, 991, -1, testkit.WithBehavior("", "subscribe-method:serve="+tc.serve),
				testkit.WithCardChange("agent", func(c *cards.Card) {
					c.Skills = append([]cards.Skill{{ID: "slow", Name: "Slow", Description: "Works 3s.", Tags: []string{"slow"}}}, c.Skills...)
				}),
				testkit.WithTimeline("agent", "slow", timeline.Timeline{
					{Kind: timeline.StepState, State: wire.StateSubmitted},
					{Kind: timeline.StepState, State: wire.StateWorking},
					{Kind: timeline.StepState, State: wire.StateCompleted, After: 3 * time.Second},
				}))
			c, _ := v1Client(t, m.URL, v1Bindings[1])
			start := func() string {
				task := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("x"), Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
				return string(task.ID)
			}
			d := drain(c.SubscribeToTask(shortCtx(t, 10*time.Second), &a2a.SubscribeToTaskRequest{ID: a2a.TaskID(start())}))
			r := jsProbeEnv(t, []string{"PROBE_TIMEOUT_MS=10000"}, m.URL, "HTTP+JSON", "subscribe", start())
			if tc.err == "" {
				require.NoError(t, d.err)
				assert.Equal(t, "status:completed", kinds(d.events)[len(d.events)-1])
				require.Nil(t, r.Error, r.Raw)
				assert.True(t, r.Ended)
			} else {
				assert.Empty(t, d.events)
				require.Error(t, d.err)
				assert.Contains(t, d.err.Error(), tc.err)
				assert.Empty(t, r.Events)
				if assert.NotNil(t, r.Error) {
					assert.Contains(t, r.Error.Message, tc.err)
				}
			}
			for _, e := range m.Journal() {
				if e.Kind == server.EntryRequest && e.Op == wire.OpSubscribe {
					assert.Equal(t, "POST /tasks/{id}:subscribe", e.Method, "neither SDK tries GET or the legacy path")
				}
			}
		})
	}
}

// TestBehaviorWireFaultsV03 drives a v0.3 agent with a2a-go v0.3.15: it
// reads a unary answer under any Content-Type and a stream under
// application/json, and a single JSON body for a stream as zero events and
// no error (as a2a-go v2 does); it resolves a tampered signed card without
// a word; a resent message gets the first task from the honest mock and a
// new one under duplicate-on-retry.
func TestBehaviorWireFaultsV03(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec          string
		streamEvents  int
		sameTask, sig bool
	}{
		{"content-type", 4, true, false},
		{"content-type:stream=type,type=application/json", 4, true, false},
		{"content-type:stream=json,type=application/json", 0, true, false},
		{"duplicate-on-retry", 4, false, false},
		{"card-signature:mode=tampered", 4, true, true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			ac := v03Agent("legacy", 1001)
			ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse(tc.spec)))
			s := startMock(t, server.Config{Seed: 1001, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
			c, card := v03Client(t, s.URL())
			assert.Equal(t, tc.sig, len(card.Signatures) > 0)
			msg := v03Text("hi")
			first, err := c.SendMessage(testCtx(t), &v03.MessageSendParams{Message: msg})
			require.NoError(t, err)
			again, err := c.SendMessage(testCtx(t), &v03.MessageSendParams{Message: msg})
			require.NoError(t, err)
			t1, ok1 := first.(*v03.Task)
			t2, ok2 := again.(*v03.Task)
			require.True(t, ok1 && ok2)
			assert.Equal(t, tc.sameTask, t1.ID == t2.ID)
			events := v03Collect(t, c.SendStreamingMessage(testCtx(t), &v03.MessageSendParams{Message: v03Text("s")}))
			assert.Len(t, events, tc.streamEvents)
			assertV03(t, s)
		})
	}
}
