package interop

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// What the official Python SDK (a2a-sdk 1.3.0) observes under the issue-12
// field faults. Each test runs all its calls in one Python process (see
// pyProbe) and asserts per fault and transport.

// TestPyBehaviorSSEFraming: a2a-sdk's SSE reader (httpx lines, joined data:
// lines) reads every valid framing. It never dispatches an event that is
// not followed by a blank line: under no-trailing-blank the terminal event
// is dropped and the stream ends without an error (nansen-cli#618's bug),
// and under lf-only, where the whole stream is one unterminated event,
// nothing at all is yielded and no error raised: a silent empty stream.
func TestPyBehaviorSSEFraming(t *testing.T) {
	t.Parallel()
	variants := append(append([]string{}, validFramings...), "no-trailing-blank", "lf-only")
	var jobs []pyJob
	for _, v := range variants {
		m := behaviorMock(t, 904, 5*time.Millisecond, testkit.WithBehavior("", "sse-framing:variant="+v))
		jobs = append(jobs, pyEach(m.URL, "stream", "")...)
	}
	res := pyProbe(t, jobs...)
	for i, v := range variants {
		t.Run(v, func(t *testing.T) {
			for k, tr := range pyTransports {
				r := res[i*len(pyTransports)+k]
				require.Nil(t, r.Error, "%s: %s", tr, r.Raw)
				assert.True(t, r.Ended, tr)
				switch v {
				case "no-trailing-blank":
					assert.Equal(t, jsHonest[:3], r.eventKinds(), "%s: the terminal event is lost", tr)
				case "lf-only":
					assert.Empty(t, r.Events, "%s: the run-together events are never dispatched", tr)
				default:
					assert.Equal(t, jsHonest, r.eventKinds(), tr)
				}
			}
		})
	}
}

// TestPyBehaviorContentType: a2a-sdk reads a unary answer under any
// Content-Type. On a stream it goes by the Content-Type: anything but
// text/event-stream is read as one JSON body. So a real event stream under
// application/json fails (JSON-RPC: A2AClientError; HTTP+JSON: protobuf's
// ParseError, untyped), while one JSON body (stream=json) is taken as a
// single event, the terminal status, without an error.
func TestPyBehaviorContentType(t *testing.T) {
	t.Parallel()
	unary := []string{"content-type", "content-type:type=application/json", "content-type:type=application/a2a+json"}
	streams := []string{"content-type:stream=type,type=application/json", "content-type:stream=json,type=application/json"}
	var jobs []pyJob
	for _, spec := range unary {
		m := behaviorMock(t, 911, 5*time.Millisecond, testkit.WithBehavior("", spec))
		jobs = append(jobs, pyEach(m.URL, "send", "")...)
	}
	for _, spec := range streams {
		m := behaviorMock(t, 912, 5*time.Millisecond, testkit.WithBehavior("", spec))
		jobs = append(jobs, pyEach(m.URL, "stream", "")...)
	}
	res := pyProbe(t, jobs...)
	for i, spec := range unary {
		for k, tr := range pyTransports {
			r := res[i*2+k]
			require.Nil(t, r.Error, "%s %s: %s", spec, tr, r.Raw)
			assert.Equal(t, "TASK_STATE_COMPLETED", r.Result.State, "%s %s", spec, tr)
		}
	}
	res = res[len(unary)*2:]
	sseAsJSON := map[string]jsError{
		"JSONRPC":   {Name: "A2AClientError", Message: "Invalid JSON-RPC response in SSE stream: Expecting value: line 1 column 1"},
		"HTTP+JSON": {Name: "ParseError", Message: "Failed to load JSON: Expecting value: line 1 column 1"},
	}
	for k, tr := range pyTransports {
		r := res[k]
		assert.Empty(t, r.Events, tr)
		if assert.NotNil(t, r.Error, "%s: %s", tr, r.Raw) {
			assert.Equal(t, sseAsJSON[tr].Name, r.Error.Name, tr)
			assert.Contains(t, r.Error.Message, sseAsJSON[tr].Message, tr)
		}
		r = res[2+k]
		require.Nil(t, r.Error, "%s: %s", tr, r.Raw)
		assert.True(t, r.Ended)
		assert.Equal(t, []string{"statusUpdate:TASK_STATE_COMPLETED"}, r.eventKinds(), "%s: the JSON body is one event", tr)
	}
}

// TestPyBehaviorErrorDataShape: a2a-sdk types a JSON-RPC error from its
// code alone, so every shape of error.data (object, list, string, absent)
// still gives TaskNotFoundError; so does its v0.3 compatibility client
// reaching a v0.3 agent.
func TestPyBehaviorErrorDataShape(t *testing.T) {
	t.Parallel()
	shapes := []string{"object", "list", "string", "absent"}
	var jobs []pyJob
	for _, shape := range shapes {
		spec := "error-data-shape:shape=" + shape
		m := behaviorMock(t, 921, 5*time.Millisecond, testkit.WithBehavior("", spec))
		ac := v03Agent("legacy", 922)
		ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse(spec)))
		s := startMock(t, server.Config{Seed: 922, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "JSONRPC", Action: "get", Arg: "nope"},
			pyJob{URL: s.URL(), Transport: "JSONRPC", Action: "get", Arg: "nope"})
	}
	res := pyProbe(t, jobs...)
	for i, shape := range shapes {
		for k, agent := range []string{"v1.0", "v0.3"} {
			r := res[i*2+k]
			if assert.NotNil(t, r.Error, "%s %s: %s", shape, agent, r.Raw) {
				assert.Equal(t, "TaskNotFoundError", r.Error.Name, "%s %s: %+v", shape, agent, r.Error)
			}
		}
	}
}

// TestPyBehaviorRESTErrorDialect asks a2a-sdk over HTTP+JSON for an
// unknown task (404) under each error dialect. It types an error only from
// a google.rpc.Status ErrorInfo reason; without one it falls back on the
// HTTP status and maps 404 to MethodNotFoundError ("Resource not found"),
// a wrong meaning for a missing task; it believes a reason that contradicts
// the status.
func TestPyBehaviorRESTErrorDialect(t *testing.T) {
	t.Parallel()
	cases := []struct{ mode, name, text string }{
		{"problem", "MethodNotFoundError", "Resource not found: "},
		{"string", "MethodNotFoundError", "Resource not found: "},
		{"no-details", "MethodNotFoundError", "Resource not found: "},
		{"reason-mismatch", "UnsupportedOperationError", "task not found: nope"},
	}
	var jobs []pyJob
	for _, tc := range cases {
		m := behaviorMock(t, 931, 5*time.Millisecond, testkit.WithBehavior("", "rest-error-dialect:mode="+tc.mode))
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "HTTP+JSON", Action: "get", Arg: "nope"})
	}
	honest := behaviorMock(t, 931, 5*time.Millisecond)
	jobs = append(jobs, pyJob{URL: honest.URL, Transport: "HTTP+JSON", Action: "get", Arg: "nope"})
	res := pyProbe(t, jobs...)
	for i, tc := range cases {
		if assert.NotNil(t, res[i].Error, "%s: %s", tc.mode, res[i].Raw) {
			assert.Equal(t, tc.name, res[i].Error.Name, tc.mode)
			assert.Contains(t, res[i].Error.Message, tc.text, tc.mode)
		}
	}
	if r := res[len(cases)]; assert.NotNil(t, r.Error, r.Raw) {
		assert.Equal(t, "TaskNotFoundError", r.Error.Name, "the honest google.rpc.Status is typed")
	}
}

// TestPyBehaviorSendResultEnvelope: a v1.0 SendMessage answered with a bare
// Task is decoded leniently (unknown members ignored) into an empty
// SendMessageResponse, which the client then refuses with a plain
// ValueError, on both bindings and with or without kind. Streams are not
// touched by the fault.
func TestPyBehaviorSendResultEnvelope(t *testing.T) {
	t.Parallel()
	specs := []string{"send-result-envelope", "send-result-envelope:kind=true"}
	var jobs []pyJob
	for _, spec := range specs {
		m := behaviorMock(t, 941, 5*time.Millisecond, testkit.WithBehavior("", spec))
		jobs = append(jobs, pyEach(m.URL, "send", "")...)
		jobs = append(jobs, pyEach(m.URL, "stream", "")...)
	}
	res := pyProbe(t, jobs...)
	for i, spec := range specs {
		for k, tr := range pyTransports {
			r := res[i*4+k]
			assert.Nil(t, r.Result, "%s %s", spec, tr)
			if assert.NotNil(t, r.Error, "%s %s: %s", spec, tr, r.Raw) {
				assert.Equal(t, jsError{Name: "ValueError", Message: "Response has neither task nor message"}, *r.Error)
			}
			r = res[i*4+2+k]
			require.Nil(t, r.Error, r.Raw)
			assert.Equal(t, jsHonest, r.eventKinds(), "%s %s", spec, tr)
		}
	}
}

// TestPyBehaviorVersionSkew: a2a-sdk picks its method set from the card's
// protocolVersion and never falls back. A card saying 1.0 in front of a
// v0.3 server gets MethodNotFoundError (JSON-RPC's -32601; HTTP+JSON's 404
// read as the same). A card saying 0.3 in front of a v1.0 server makes the
// SDK use its v0.3 compatibility client (message/send): MethodNotFoundError
// over JSON-RPC, and over HTTP+JSON too: the v0.3 card declares v0.3's
// HTTP+JSON interface ({agent}/v0.3), which a v1.0 server does not serve
// (404 read as MethodNotFoundError).
func TestPyBehaviorVersionSkew(t *testing.T) {
	t.Parallel()
	old := behaviorMock(t, 1011, 5*time.Millisecond, testkit.WithBehavior("", "version-skew:serve=0.3"))
	upgraded := behaviorMock(t, 1012, 5*time.Millisecond, testkit.WithBehavior("", "version-skew:serve=1.0"))
	res := pyProbe(t, append(pyEach(old.URL, "send", ""), pyEach(upgraded.URL, "send", "")...)...)
	want := []jsError{
		{Name: "MethodNotFoundError", Message: "Method not found: SendMessage"},
		{Name: "MethodNotFoundError", Message: "Resource not found: " + old.URL + "/rest/message:send"},
		{Name: "MethodNotFoundError", Message: "Method not found: message/send"},
		{Name: "MethodNotFoundError", Message: "Resource not found: " + upgraded.URL + "/v0.3/v1/message:send"},
	}
	for i, w := range want {
		if assert.NotNil(t, res[i].Error, res[i].Raw) {
			assert.Equal(t, w, *res[i].Error, "job %d", i)
		}
	}
}

// TestPyBehaviorListPaginationLoop: a2a-sdk does not page by itself and
// hands the repeated nextPageToken to the caller as if the listing
// advanced: the probe, following tokens, gets page 1 five times (its own
// bound), on both bindings.
func TestPyBehaviorListPaginationLoop(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 952, -1, testkit.WithBehavior("", "list-pagination-loop"))
	c, _ := v1Client(t, m.URL, v1Bindings[0])
	for range 2 {
		sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("x")})
	}
	for k, r := range pyProbe(t, pyEach(m.URL, "list", "")...) {
		require.Nil(t, r.Error, "%s: %s", pyTransports[k], r.Raw)
		require.Len(t, r.Pages, 5, "the probe stopped at its own bound, not the SDK's")
		for _, p := range r.Pages {
			require.Len(t, p, 1)
			assert.Equal(t, r.Pages[0], p)
		}
	}
	rt := &failRecorder{}
	assert.False(t, testkit.AssertNoPageTokenLoop(rt, m.Journal()))
	assert.Contains(t, rt.msg, "ListTasks followed a nextPageToken that repeated")
}

// TestPyBehaviorDuplicateOnRetry: a message object resent through a2a-sdk
// keeps its messageId; the honest mock answers with the first task,
// duplicate-on-retry creates a second one. The SDK never resends by itself.
func TestPyBehaviorDuplicateOnRetry(t *testing.T) {
	t.Parallel()
	honest := behaviorMock(t, 981, -1)
	dup := behaviorMock(t, 981, -1, testkit.WithBehavior("", "duplicate-on-retry"))
	res := pyProbe(t, append(pyEach(honest.URL, "retry", ""), pyEach(dup.URL, "retry", "")...)...)
	for i, r := range res {
		require.Nil(t, r.Error, r.Raw)
		require.Len(t, r.Pages, 2)
		assert.Equal(t, i < 2, r.Pages[0][0] == r.Pages[1][0], "job %d: %v", i, r.Pages)
	}
	for _, m := range []*testkit.Mock{honest, dup} {
		assert.Equal(t, 4, sends(m, "send"), "every send reached the mock once")
		assert.True(t, testkit.AssertRetryReusedMessageID(t, m.Journal()))
	}
}

// TestPyBehaviorCardUnderclaims: a2a-sdk believes a card denying streaming
// and sends SendMessage instead (one Task event). It picks its method set
// from the interface's protocolVersion: 2.0 is treated as v1.0 and streams
// as usual; 0.3.0 (the fault's default) switches it to its v0.3
// compatibility client, which over JSON-RPC still streams (the mock also
// answers v0.3 method names) but over HTTP+JSON posts to v0.3's
// /v1/message:stream, which a v1.0 agent reads as tenant "v1" with a body it
// cannot parse: HTTP 400, an untyped A2AClientError.
func TestPyBehaviorCardUnderclaims(t *testing.T) {
	t.Parallel()
	s := underclaimingMock(t, "card-underclaims:claims=streaming|pushNotifications|extendedAgentCard")
	pv := underclaimingMock(t, "card-underclaims:claims=protocol-version,version=2.0")
	pv03 := underclaimingMock(t, "card-underclaims:claims=protocol-version")
	jobs := append(pyEach(s.URL(), "stream", ""), pyEach(pv.URL(), "stream", "")...)
	res := pyProbe(t, append(jobs, pyEach(pv03.URL(), "stream", "")...)...)
	for k, tr := range pyTransports {
		require.Nil(t, res[k].Error, res[k].Raw)
		assert.False(t, res[k].Card.Streaming)
		assert.Equal(t, []string{"task:TASK_STATE_COMPLETED"}, res[k].eventKinds(), tr)
		require.Nil(t, res[2+k].Error, res[2+k].Raw)
		assert.Equal(t, jsHonest, res[2+k].eventKinds(), tr)
	}
	assert.Zero(t, ops(s, wire.OpStream), "the SDK did not ask to stream")
	assert.Equal(t, 2, ops(pv, wire.OpStream))

	r := res[4]
	require.Nil(t, r.Error, r.Raw)
	assert.Len(t, r.Events, 4, "JSON-RPC in v0.3: %s", r.Raw)
	assert.Equal(t, "statusUpdate:TASK_STATE_COMPLETED", r.eventKinds()[len(r.Events)-1])
	refused, seen := map[int64]bool{}, 0
	for _, e := range pv03.Journal().Entries() {
		switch {
		case e.Kind == server.EntryRequest && e.Op == wire.OpStream && e.Binding == wire.BindingJSONRPC:
			assert.NotEqual(t, wire.V10, e.Dialect, "the SDK spoke v0.3")
		case e.Kind == server.EntryRequest && e.Op == wire.OpStream:
			// The HTTP+JSON post to v0.3's path, refused, is journaled.
			assert.Equal(t, wire.BindingREST, e.Binding)
			assert.True(t, strings.HasSuffix(e.Path, "/v1/message:stream"), e.Path)
			refused[e.Request] = true
			seen++
		case e.Kind == server.EntryResponse && refused[e.Request]:
			assert.NotZero(t, e.ErrorCode, "the refusal is journaled with its error: %s", e.Detail)
			delete(refused, e.Request)
		}
	}
	assert.Equal(t, 1, seen, "one HTTP+JSON stream request, refused")
	assert.Empty(t, refused, "every refused request has its response entry")
	r = res[5]
	assert.Empty(t, r.Events)
	if assert.NotNil(t, r.Error, r.Raw) {
		assert.Equal(t, "A2AClientError", r.Error.Name)
		assert.Contains(t, r.Error.Message, "HTTP Error 400")
		assert.Contains(t, r.Error.Message, "/rest/v1/message:stream")
	}
}

// TestPyBehaviorSubscribeMethod: a2a-sdk subscribes over HTTP+JSON with
// POST /tasks/{id}:subscribe only, like the other SDKs: a GET-only or
// legacy-path agent fails the subscription with the agent's 405/404 (the
// 404 read as MethodNotFoundError), a POST-only one works.
func TestPyBehaviorSubscribeMethod(t *testing.T) {
	t.Parallel()
	cases := []struct{ serve, name string }{{"get", "A2AClientError"}, {"post", ""}, {"legacy", "MethodNotFoundError"}}
	var jobs []pyJob
	var mocks []*testkit.Mock
	for _, tc := range cases {
		m := behaviorMock(t, 991, -1, testkit.WithBehavior("", "subscribe-method:serve="+tc.serve),
			testkit.WithCardChange("agent", func(c *cards.Card) {
				c.Skills = append([]cards.Skill{{ID: "slow", Name: "Slow", Description: "Works 3s.", Tags: []string{"slow"}}}, c.Skills...)
			}),
			testkit.WithTimeline("agent", "slow", timeline.Timeline{
				{Kind: timeline.StepState, State: wire.StateSubmitted},
				{Kind: timeline.StepState, State: wire.StateWorking},
				{Kind: timeline.StepState, State: wire.StateCompleted, After: 3 * time.Second},
			}))
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "HTTP+JSON", Action: "subscribe", Arg: "skill=slow", TimeoutMS: 10000})
		mocks = append(mocks, m)
	}
	res := pyProbe(t, jobs...)
	for i, tc := range cases {
		r := res[i]
		if tc.name == "" {
			require.Nil(t, r.Error, r.Raw)
			assert.True(t, r.Ended)
			assert.Equal(t, "statusUpdate:TASK_STATE_COMPLETED", r.eventKinds()[len(r.Events)-1])
		} else {
			assert.Empty(t, r.Events, tc.serve)
			if assert.NotNil(t, r.Error, "%s: %s", tc.serve, r.Raw) {
				assert.Equal(t, tc.name, r.Error.Name, "%s: %+v", tc.serve, r.Error)
			}
		}
		for _, e := range mocks[i].Journal() {
			if e.Kind == server.EntryRequest && e.Op == wire.OpSubscribe {
				assert.Equal(t, "POST /tasks/{id}:subscribe", e.Method, "the SDK tries neither GET nor the legacy path")
			}
		}
	}
}

// TestPyBehaviorBufferedBurstAndIdleGap: a2a-sdk reads a burst of every
// event in one chunk correctly, and waits out a 1s silence. Unlike a2a-go
// and @a2a-js/sdk it does have an idle timeout, though not its own: the
// httpx client it creates keeps httpx's default 5s read timeout, so a
// longer silence ends the stream with A2AClientTimeoutError after the
// events before the gap, well before the caller's deadline (15s here).
func TestPyBehaviorBufferedBurstAndIdleGap(t *testing.T) {
	t.Parallel()
	burst := behaviorMock(t, 962, 5*time.Millisecond, testkit.WithBehavior("", "slow-stream:delay=100ms"), testkit.WithBehavior("", "buffered-burst"))
	gap := behaviorMock(t, 973, 5*time.Millisecond, testkit.WithBehavior("", "idle-gap:after=2,gap=1s"))
	long := behaviorMock(t, 974, 5*time.Millisecond, testkit.WithBehavior("", "idle-gap:after=2,gap=8s"))
	jobs := append(pyEach(burst.URL, "stream", ""), pyEach(gap.URL, "stream", "")...)
	for _, j := range pyEach(long.URL, "stream", "") {
		j.TimeoutMS = 15000
		jobs = append(jobs, j)
	}
	res := pyProbe(t, jobs...)
	for k, tr := range pyTransports {
		for _, r := range []pyResult{res[k], res[2+k]} {
			require.Nil(t, r.Error, "%s: %s", tr, r.Raw)
			assert.Equal(t, jsHonest, r.eventKinds(), tr)
		}
		r := res[4+k]
		assert.Equal(t, jsHonest[:2], r.eventKinds(), tr)
		if assert.NotNil(t, r.Error, "%s: %s", tr, r.Raw) {
			assert.Equal(t, jsError{Name: "A2AClientTimeoutError", Message: "Client Request timed out"}, *r.Error)
		}
	}
}

// TestPyBehaviorTenant: a2a-sdk carries the tenant the card's interface
// declares (TenantTransportDecorator: the params' tenant over JSON-RPC,
// the /{tenant} path prefix over HTTP+JSON), so a tenant-requiring agent
// serves it.
func TestPyBehaviorTenant(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 995, -1, testkit.WithBehavior("", "tenant:mode=require"))
	for k, r := range pyProbe(t, pyEach(m.URL, "send", "")...) {
		require.Nil(t, r.Error, "%s: %s", pyTransports[k], r.Raw)
		assert.Equal(t, "TASK_STATE_COMPLETED", r.Result.State)
	}
	rest := 0
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest && e.Binding == wire.BindingREST {
			rest++
			assert.Contains(t, e.Path, "/rest/acme/", "HTTP+JSON requests carry the tenant prefix")
		}
	}
	assert.Positive(t, rest)
}
