package interop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	v03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// v1ClientWith is v1Client with a given HTTP client and extra options, for
// tests that tune the transport (header timeouts) or add interceptors.
func v1ClientWith(t *testing.T, base string, b v1Binding, hc *http.Client, opts ...a2aclient.FactoryOption) *a2aclient.Client {
	t.Helper()
	ctx := testCtx(t)
	card, err := agentcard.NewResolver(httpClient(t)).Resolve(ctx, base)
	require.NoError(t, err)
	tr := a2aclient.WithJSONRPCTransport(hc)
	if b.name == "REST" {
		tr = a2aclient.WithRESTTransport(hc)
	}
	c, err := a2aclient.NewFromCard(ctx, card, append([]a2aclient.FactoryOption{a2aclient.WithDefaultsDisabled(), tr}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// sends counts the send requests the mock's journal recorded, to show the
// SDK did not resend a message on its own.
func sends(m *testkit.Mock, op string) int {
	n := 0
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest && string(e.Op) == op {
			n++
		}
	}
	return n
}

// countTasks lists the agent's tasks with the given client.
func countTasks(t *testing.T, c *a2aclient.Client) int {
	t.Helper()
	list, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{})
	require.NoError(t, err)
	return len(list.Tasks)
}

func TestBehaviorCardOverclaims(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 301, -1, testkit.WithBehavior("", "card-overclaims"))
		c, card := v1Client(t, m.URL, b)
		require.True(t, card.Capabilities.Streaming, "the card claims streaming")
		require.True(t, card.Capabilities.PushNotifications, "the card claims push")
		ctx := testCtx(t)

		// Trusting the claim, the SDK streams (it does not fall back to
		// SendMessage by itself). The refusal is a plain JSON error answer:
		// over HTTP+JSON its 4xx status makes the SDK read it as the typed
		// error; over JSON-RPC it is a 200 application/json body, which the
		// SDK's SSE reader skips (no data: lines), so the caller sees zero
		// events and no error, the stream-error-as-json pain again.
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream?")}))
		assert.Empty(t, d.events)
		if b.name == "REST" {
			assert.ErrorIs(t, d.err, a2a.ErrUnsupportedOperation, "got %v", d.err)
		} else {
			assert.NoError(t, d.err, "a2a-go v2 JSON-RPC drops the refusal")
		}

		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("plain send works")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook"})
		assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported, "got %v", err)
	})
}

func TestBehaviorCardOverclaimsMethodNotFound(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 302, -1, testkit.WithBehavior("", "card-overclaims:refuse-with=method-not-found"))
	c, _ := v1Client(t, m.URL, v1Bindings[0])
	ctx := testCtx(t)
	// Over JSON-RPC the -32601 answer to the stream is dropped like any
	// JSON error body (see TestBehaviorCardOverclaims); the same code on a
	// unary call is typed, which shows the answer was there to read.
	d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream?")}))
	assert.Empty(t, d.events)
	assert.NoError(t, d.err)
	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("send")})
	_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook"})
	assert.ErrorIs(t, err, a2a.ErrMethodNotFound, "got %v", err)
}

// TestBehaviorCardOverclaimsHistoryV03 checks stateTransitionHistory, which
// only v0.x cards carry, with a2a-go v0.3.
func TestBehaviorCardOverclaimsHistoryV03(t *testing.T) {
	t.Parallel()
	ac := v03Agent("legacy", 303)
	ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse("card-overclaims")))
	s := startMock(t, server.Config{Seed: 303, StepDelay: -1, Agents: []server.AgentConfig{ac}})
	c, card := v03Client(t, s.URL())
	require.True(t, card.Capabilities.StateTransitionHistory)
	ctx := testCtx(t)
	res, err := c.SendMessage(ctx, &v03.MessageSendParams{Message: v03Text("remember")})
	require.NoError(t, err)
	task, ok := res.(*v03.Task)
	require.True(t, ok, "message/send returned %T", res)
	got, err := c.GetTask(ctx, &v03.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Empty(t, got.History, "history declared, served empty")

	// a2a-go v0.3 reads the JSON error answer to message/stream the same
	// way v2 does: zero events, no error.
	var streamErr error
	n := 0
	for _, err := range c.SendStreamingMessage(ctx, &v03.MessageSendParams{Message: v03Text("stream?")}) {
		if err != nil {
			streamErr = err
			break
		}
		n++
	}
	assert.NoError(t, streamErr)
	assert.Zero(t, n)
}

func TestBehaviorVersionSkew(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 304, -1, testkit.WithBehavior("", "version-skew:serve=0.3"))
		c, card := v1Client(t, m.URL, b)
		require.Equal(t, a2a.ProtocolVersion("1.0"), card.SupportedInterfaces[0].ProtocolVersion, "the card says 1.0")
		_, err := c.SendMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("hello")})
		require.Error(t, err)
		if b.name == "REST" {
			// -32601 has no ErrorInfo reason, so over HTTP+JSON the SDK
			// cannot tell the version mismatch from any other failure.
			assert.ErrorIs(t, err, a2a.ErrInternalError, "got %v", err)
		} else {
			assert.ErrorIs(t, err, a2a.ErrMethodNotFound, "got %v", err)
		}
	})
}

// TestBehaviorVersionSkewV03 is the reverse skew: the card says 0.3, the
// server only knows the v1.0 names, and a2a-go v0.3 gets Method not found.
func TestBehaviorVersionSkewV03(t *testing.T) {
	t.Parallel()
	ac := v03Agent("legacy", 305)
	ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse("version-skew:serve=1.0")))
	s := startMock(t, server.Config{Seed: 305, StepDelay: -1, Agents: []server.AgentConfig{ac}})
	c, card := v03Client(t, s.URL())
	assert.Equal(t, "0.3.0", card.ProtocolVersion)
	_, err := c.SendMessage(testCtx(t), &v03.MessageSendParams{Message: v03Text("hello")})
	assert.ErrorIs(t, err, v03.ErrMethodNotFound, "got %v", err)
}

func TestBehaviorLegacyCardPathOnly(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 306, -1, testkit.WithBehavior("", "legacy-card-path-only"))
	ctx := testCtx(t)
	r := agentcard.NewResolver(httpClient(t))
	// a2a-go v2 does not fall back to the legacy path: discovery fails with
	// the 404 of the current one.
	_, err := r.Resolve(ctx, m.URL)
	var notOK *agentcard.ErrStatusNotOK
	require.ErrorAs(t, err, &notOK)
	assert.Equal(t, http.StatusNotFound, notOK.StatusCode)

	card, err := r.Resolve(ctx, m.URL, agentcard.WithPath("/.well-known/agent.json"))
	require.NoError(t, err, "the legacy path serves the card")
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithDefaultsDisabled(), a2aclient.WithJSONRPCTransport(httpClient(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("found you")})
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
}

func TestBehaviorHTTPError(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 307, -1, testkit.WithBehavior("", "http-error:status=503,body=upstream down"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("hello")})
		require.Error(t, err)
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream")}))
		assert.Empty(t, d.events)
		require.Error(t, d.err)
		if b.name == "REST" {
			// A non-JSON error body becomes the generic ErrServerError; the
			// status and Retry-After are not exposed.
			assert.ErrorIs(t, err, a2a.ErrServerError, "got %v", err)
			assert.ErrorIs(t, d.err, a2a.ErrServerError, "got %v", d.err)
		} else {
			// JSON-RPC: an untyped error naming the status.
			assert.EqualError(t, err, "unexpected HTTP status: 503 Service Unavailable")
			assert.EqualError(t, d.err, "unexpected HTTP status: 503 Service Unavailable")
		}
		assert.Equal(t, 1, sends(m, "send"), "the SDK does not retry")
	})
}

func TestBehaviorConnectionReset(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 308, -1, testkit.WithBehavior("", "connection-reset:op=send,text=^before", "connection-reset:after=10,op=send,text=^after"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		// after=0 resets before the status line, so the SDK's
		// http.Client.Do itself fails. (Until 95977d9 the mock flushed the
		// head before the RST and the reset hit the body read instead.)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("before the head")})
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ECONNRESET, "got %v", err)
		assert.Contains(t, err.Error(), "failed to send HTTP request", "after=0: no status line reaches the client, got %v", err)

		// after=10: the head and 10 body bytes go out, the reset hits the
		// SDK's decoder.
		_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("after the head")})
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ECONNRESET, "got %v", err)
		assert.Contains(t, err.Error(), "failed to decode response")

		assert.Equal(t, 2, sends(m, "send"), "the SDK does not resend")
		assert.Equal(t, 2, countTasks(t, c), "the agent handled both messages before the reset")
	})
}

func TestBehaviorEmptyResponse(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 309, -1, testkit.WithBehavior("", "empty-response:op=send|stream"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("hello")})
		require.Error(t, err, "an empty body is not a null result")
		assert.ErrorIs(t, err, io.EOF, "got %v", err)

		// On a stream the empty body is an empty stream: zero events and no
		// error, with a task created behind the client's back.
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream")}))
		assert.NoError(t, d.err)
		assert.Empty(t, d.events)
		assert.Equal(t, 2, countTasks(t, c))
	})
}

func TestBehaviorMalformedJSON(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 310, 5*time.Millisecond,
			testkit.WithBehavior("", "malformed-json:op=send", "malformed-json:mode=trailing-comma,op=get-task", "malformed-json:event=2,op=stream"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("hello")})
		require.Error(t, err)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "mode=cut: got %v", err)

		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream")}))
		assert.Equal(t, honestKinds[:1], kinds(d.events), "the event before the corrupted one arrives")
		require.Error(t, d.err, "the SDK fails the stream at the bad event")
		var syn *json.SyntaxError
		assert.ErrorAs(t, d.err, &syn, "got %v", d.err)

		_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: d.events[0].TaskInfo().TaskID})
		require.Error(t, err)
		assert.ErrorAs(t, err, &syn, "mode=trailing-comma: got %v", err)
	})
}

func TestBehaviorTruncatedBody(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 311, 5*time.Millisecond, testkit.WithBehavior("", "truncated-body:op=send|stream"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("hello")})
		require.Error(t, err)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "got %v", err)

		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream")}))
		assert.Empty(t, d.events)
		require.Error(t, d.err)
		assert.ErrorIs(t, d.err, io.ErrUnexpectedEOF, "got %v", d.err)
	})
}

func TestBehaviorLatency(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 312, -1, testkit.WithBehavior("", "latency:delay=300ms,text=^start", "latency:delay=300ms,phase=body,text=^body"))
		// A client that bounds only the wait for headers.
		tr := &http.Transport{ResponseHeaderTimeout: 150 * time.Millisecond}
		t.Cleanup(tr.CloseIdleConnections)
		c := v1ClientWith(t, m.URL, b, &http.Client{Transport: tr})
		ctx := testCtx(t)

		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("start")})
		require.Error(t, err, "phase=start trips the header timeout")
		assert.Contains(t, err.Error(), "timeout awaiting response headers")

		start := time.Now()
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("body")})
		assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "phase=body fools a header-only timeout")

		// A call deadline cancels the slow call cleanly.
		_, err = c.SendMessage(shortCtx(t, 100*time.Millisecond), &a2a.SendMessageRequest{Message: userText("body again")})
		assert.ErrorIs(t, err, context.DeadlineExceeded, "got %v", err)
	})
}

// bearer is a call interceptor that sends a fixed bearer token.
type bearer string

func (bearer) After(context.Context, *a2aclient.Response) error { return nil }

func (tok bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	req.ServiceParams["Authorization"] = []string{"Bearer " + string(tok)}
	return ctx, nil, nil
}

// TestSDKCannotParseSecurityRequirements pins an SDK disagreement found
// while driving auth-flaky: the v1.0 schema spells a security requirement
// {"schemes":{"bearer":{"list":[...]}}} (StringList), a2a-go v2.4.0 wants
// {"schemes":{"bearer":[...]}}, so a card that declares one fails to parse.
func TestSDKCannotParseSecurityRequirements(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 315, -1, testkit.WithCardChange("agent", func(c *cards.Card) {
		c.SecuritySchemes = map[string]cards.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}
		c.Security = []map[string][]string{{"bearer": {}}}
	}))
	_, err := agentcard.NewResolver(httpClient(t)).Resolve(testCtx(t), m.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "securityRequirements.schemes")
}

func TestBehaviorAuthFlaky(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 313, -1,
			testkit.WithCardChange("agent", func(c *cards.Card) {
				// No security requirements: a2a-go v2.4.0 cannot parse the
				// schema's {"schemes":{"bearer":{"list":[]}}} shape (see
				// TestSDKCannotParseSecurityRequirements), so the card only
				// declares the scheme and the token goes in by interceptor.
				c.SecuritySchemes = map[string]cards.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}
			}),
			testkit.WithServerConfig(func(cfg *server.Config) { cfg.Agents[0].EnforceAuth = true }),
			testkit.WithBehavior("", "auth-flaky:times=2"))
		c := v1ClientWith(t, m.URL, b, httpClient(t), a2aclient.WithCallInterceptors(bearer(server.TestBearerToken)))
		ctx := testCtx(t)

		for i := range 2 {
			_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("hello")})
			require.Error(t, err, "valid token refused, try %d", i+1)
			if b.name == "REST" {
				assert.ErrorIs(t, err, a2a.ErrUnauthenticated, "got %v", err)
			} else {
				// The JSON-RPC client rejects any non-200 before reading
				// the body, so the -31401 it carries is never typed.
				assert.EqualError(t, err, "unexpected HTTP status: 401 Unauthorized")
			}
		}
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("hello")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "the third try goes through")
	})
}

// TestBehaviorTransportHonestOutOfScope fails the first send only: the
// second, the card fetch and GetTask are honest.
func TestBehaviorTransportHonestOutOfScope(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 314, -1, testkit.WithBehavior("", "http-error:status=502,op=send,call=1", "malformed-json:op=get-task,dialect=0.3"))
		c, _ := v1Client(t, m.URL, b)
		ctx := testCtx(t)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userText("one")})
		require.Error(t, err)
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("two")})
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err, "malformed-json is scoped to the v0.3 dialect")
		assert.Equal(t, task.ID, got.ID)
		for _, e := range m.Journal() {
			if e.Kind == server.EntryRequest && e.Op != "" {
				assert.Equal(t, wire.V10, e.Dialect)
			}
		}
	})
}

// TestBehaviorCardHonestOutOfScope applies the card and version behaviors to
// one agent of two: the other is discovered at the current path and answers
// the v1.0 methods.
func TestBehaviorCardHonestOutOfScope(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		m := behaviorMock(t, 316, -1, testkit.WithAgents("fine", "old"),
			testkit.WithBehavior("old", "legacy-card-path-only", "version-skew:serve=0.3", "card-overclaims"))
		ctx := testCtx(t)
		_, err := agentcard.NewResolver(httpClient(t)).Resolve(ctx, m.AgentURL("old"))
		require.Error(t, err, "the faulty agent has no card at the current path")

		c, card := v1Client(t, m.AgentURL("fine"), b)
		assert.Equal(t, "fine", card.Name)
		assert.False(t, card.Capabilities.PushNotifications, "no overclaim on the honest agent")
		d := drain(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("hello")}))
		require.NoError(t, d.err)
		assert.Equal(t, honestKinds, kinds(d.events))
	})
}
