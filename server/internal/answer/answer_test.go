package answer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/credentials"
	"github.com/a2amock/a2amock/wire"
)

// bearerScheme is a card's one security scheme in the auth tests.
var bearerScheme = map[string]cards.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}

// The Authorization headers of the auth tests.
const (
	rightToken     = "Bearer " + credentials.TestBearerToken
	wrongToken     = "Bearer not-the-token"
	forbiddenToken = "Bearer " + credentials.TestForbiddenToken
)

// TestCheckAuth: an agent that enforces authentication refuses a request
// without valid credentials (401 for missing or wrong, 403 for a
// credential it recognises but does not allow); one that does not asks
// for them only to continue a task that is auth-required.
func TestCheckAuth(t *testing.T) {
	t.Parallel()
	open := newRig(t, agentSpec{schemes: bearerScheme, authRequired: true})
	require.Equal(t, "200", outcome(t, wire.BindingJSONRPC, open.send(wire.BindingJSONRPC, message{})))
	pending := taskID(t, open)
	require.Equal(t, wire.StateAuthRequired, open.agent.eng.TaskState(pending))
	enforced := newRig(t, agentSpec{schemes: bearerScheme, enforce: true})

	cases := []struct {
		name     string
		rig      *rig
		taskID   string // the task the message continues
		auth     string
		wantCode int // 0: accepted
		wantText string
	}{
		{"enforced, none", enforced, "", "", wire.CodeUnauthenticated, "authentication required"},
		{"enforced, wrong", enforced, "", wrongToken, wire.CodeUnauthenticated, "not valid"},
		{"enforced, forbidden", enforced, "", forbiddenToken, wire.CodeUnauthorized, "not allowed"},
		{"enforced, right", enforced, "", rightToken, 0, ""},
		{"open, none", open, "", "", 0, ""},
		{"open, unknown task, none", open, "no-such-task", "", 0, ""},
		{"open, auth-required task, none", open, pending, "", wire.CodeUnauthenticated, "task " + pending + " is auth-required"},
		{"open, auth-required task, wrong", open, pending, wrongToken, wire.CodeUnauthenticated, "is auth-required"},
		{"open, auth-required task, right", open, pending, rightToken, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			req := &wire.Request{Op: wire.OpSend, Message: &wire.Message{MessageID: "m", TaskID: tc.taskID, Parts: []wire.Part{{Text: "hi"}}}}
			e := checkAuth(tc.rig.agent, r, req)
			if tc.wantCode == 0 {
				assert.Nil(t, e)
				return
			}
			require.NotNil(t, e)
			assert.Equal(t, tc.wantCode, e.Code)
			assert.Contains(t, e.Message, tc.wantText)
		})
	}
	// A request without a message (GetTask) never continues a task.
	assert.Nil(t, checkAuth(open.agent, httptest.NewRequest(http.MethodPost, "/", nil), &wire.Request{Op: wire.OpGetTask, TaskID: pending}))
}

// TestAuthRefusalPerBinding: each binding answers a refused credential
// check in its spec's shape (JSON-RPC: the error with 401/403 as the HTTP
// status; HTTP+JSON: google.rpc.Status; gRPC: the status code), a 401
// carries WWW-Authenticate, the refusal is journaled as the request's
// response, and the behaviors never see a refused request.
func TestAuthRefusalPerBinding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		auth string
		want map[wire.Binding]string
		code int
	}{
		{"none", "", map[wire.Binding]string{wire.BindingJSONRPC: "401 -31401", wire.BindingREST: "401 UNAUTHENTICATED", wire.BindingGRPC: "Unauthenticated"}, wire.CodeUnauthenticated},
		{"wrong", wrongToken, map[wire.Binding]string{wire.BindingJSONRPC: "401 -31401", wire.BindingREST: "401 UNAUTHENTICATED", wire.BindingGRPC: "Unauthenticated"}, wire.CodeUnauthenticated},
		{"forbidden", forbiddenToken, map[wire.Binding]string{wire.BindingJSONRPC: "403 -31403", wire.BindingREST: "403 PERMISSION_DENIED", wire.BindingGRPC: "PermissionDenied"}, wire.CodeUnauthorized},
		{"right", rightToken, map[wire.Binding]string{wire.BindingJSONRPC: "200", wire.BindingREST: "200", wire.BindingGRPC: "200"}, 0},
	}
	for _, b := range bindings {
		for _, tc := range cases {
			t.Run(string(b)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				rg := newRig(t, agentSpec{schemes: bearerScheme, enforce: true, behaviors: []string{"skip-working"}})
				var hdr []string
				if tc.auth != "" {
					hdr = []string{"Authorization", tc.auth}
				}
				w := rg.send(b, message{}, hdr...)
				assert.Equal(t, tc.want[b], outcome(t, b, w))
				assert.Equal(t, tc.code == wire.CodeUnauthenticated, w.Header().Get("WWW-Authenticate") != "", "WWW-Authenticate with 401 only")

				reqs, resps := rg.entries(journal.EntryRequest), rg.entries(journal.EntryResponse)
				require.Len(t, reqs, 1)
				require.Len(t, resps, 1)
				assert.Equal(t, reqs[0].Request, resps[0].Request)
				assert.Equal(t, tc.code, resps[0].ErrorCode)
				if tc.code != 0 {
					assert.Empty(t, reqs[0].Behaviors, "a refused request is not shown to the behaviors")
					assert.Empty(t, resps[0].TaskID)
				} else {
					assert.Equal(t, []string{"skip-working"}, reqs[0].Behaviors)
				}
			})
		}
	}
}

// TestCardAnswer: the card is served to GET and HEAD, public even when
// the agent enforces authentication, and journaled as a card entry; any
// other method gets 405 with Allow and no entry; behaviors scoped to the
// card answer in its place or hide it at one path, named on the entry
// with the hook they acted through.
func TestCardAnswer(t *testing.T) {
	t.Parallel()
	const cardPath, legacyPath = "/.well-known/agent-card.json", "/.well-known/agent.json"
	cases := []struct {
		name      string
		spec      agentSpec
		method    string
		path      string
		status    int
		allow     string
		entry     bool // a card entry is journaled
		errorCode int
		acted     []journal.ActedBehavior
	}{
		{"get", agentSpec{}, http.MethodGet, cardPath, http.StatusOK, "", true, 0, nil},
		{"head", agentSpec{}, http.MethodHead, cardPath, http.StatusOK, "", true, 0, nil},
		{"public under enforced auth", agentSpec{schemes: bearerScheme, enforce: true}, http.MethodGet, cardPath, http.StatusOK, "", true, 0, nil},
		{"post", agentSpec{}, http.MethodPost, cardPath, http.StatusMethodNotAllowed, "GET, HEAD", false, 0, nil},
		{"http-error", agentSpec{behaviors: []string{"http-error:op=agent-card,status=503"}}, http.MethodGet, cardPath, http.StatusServiceUnavailable, "", true, wire.CodeInternal,
			[]journal.ActedBehavior{{Behavior: "http-error:op=agent-card,status=503", Hook: journal.HookTransport}, {Behavior: "http-error:op=agent-card,status=503", Hook: journal.HookReject}}},
		{"hidden path", agentSpec{behaviors: []string{"legacy-card-path-only"}}, http.MethodGet, cardPath, http.StatusNotFound, "", true, 0,
			[]journal.ActedBehavior{{Behavior: "legacy-card-path-only", Hook: journal.HookHideCardPath}}},
		{"legacy path", agentSpec{behaviors: []string{"legacy-card-path-only"}}, http.MethodGet, legacyPath, http.StatusOK, "", true, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rg := newRig(t, tc.spec)
			w := httptest.NewRecorder()
			r := httptest.NewRequestWithContext(t.Context(), tc.method, "http://mock.test/agents/a"+tc.path, nil)
			requireAnswered(t, rg.s.Card(w, r, rg.agent, "/agents/a", tc.path))
			assert.Equal(t, tc.status, w.Code, "%s", w.Body)
			assert.Equal(t, tc.allow, w.Header().Get("Allow"))
			if tc.status == http.StatusOK {
				assert.NotEmpty(t, w.Header().Get("ETag"))
				if tc.method == http.MethodGet {
					assert.Contains(t, w.Body.String(), `"url":"http://mock.test/agents/a/"`, "the card names the URL the client reached")
				}
			}
			ents := rg.entries(journal.EntryCard)
			if !tc.entry {
				assert.Empty(t, ents)
				assert.Zero(t, rg.journal.Len())
				return
			}
			require.Len(t, ents, 1)
			e := ents[0]
			assert.Equal(t, behaviors.OpCard, e.Op)
			assert.Equal(t, "/agents/a"+tc.path, e.Path)
			assert.Equal(t, tc.errorCode, e.ErrorCode)
			assert.Equal(t, tc.spec.behaviors, e.Behaviors, "every behavior in scope is listed")
			assert.ElementsMatch(t, tc.acted, e.Acted, "only those that changed the answer, with their hook")
		})
	}
}

// TestRequestJournalsTheBehaviorsThatActed: a unary request's entry
// lists the behaviors in its scope and those skipped (with the scope key),
// names each behavior that changed the answer with its hook, and the
// metrics count them; the response entry carries what the agent answered.
func TestRequestJournalsTheBehaviorsThatActed(t *testing.T) {
	t.Parallel()
	const skip, delay, other = "skip-working", "latency:delay=1ms", "http-error:op=get-task"
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			rg := newRig(t, agentSpec{behaviors: []string{skip, delay, other}})
			require.Equal(t, "200", outcome(t, b, rg.send(b, message{})))

			reqs := rg.entries(journal.EntryRequest)
			require.Len(t, reqs, 1)
			e := reqs[0]
			assert.Equal(t, wire.OpSend, e.Op)
			assert.Equal(t, b, e.Binding)
			assert.Equal(t, []string{skip, delay}, e.Behaviors)
			require.Len(t, e.Skipped, 1)
			assert.Equal(t, journal.SkippedBehavior{Behavior: other, Key: "op", Detail: e.Skipped[0].Detail}, e.Skipped[0])
			assert.ElementsMatch(t, []journal.ActedBehavior{{Behavior: skip, Hook: journal.HookPlan}, {Behavior: delay, Hook: journal.HookDelay}}, e.Acted)

			resps := rg.entries(journal.EntryResponse)
			require.Len(t, resps, 1)
			assert.Equal(t, e.Request, resps[0].Request)
			assert.Equal(t, wire.StateCompleted, resps[0].State)
			assert.NotEmpty(t, resps[0].TaskID)

			m := rg.metricsText()
			assert.Contains(t, m, `a2amock_behavior_applied_total{agent="a",behavior="skip-working"} 1`)
			assert.Contains(t, m, `a2amock_behavior_skipped_total{agent="a",behavior="http-error:op=get-task",key="op"} 1`)
		})
	}
}

// TestBadInputAnswersWithTheSpecError: requests the agent cannot serve
// get the binding's spec-shaped error, journaled as their response.
func TestBadInputAnswersWithTheSpecError(t *testing.T) {
	t.Parallel()
	sendMessage := func(m message) func(*rig, wire.Binding) *httptest.ResponseRecorder {
		return func(rg *rig, b wire.Binding) *httptest.ResponseRecorder { return rg.send(b, m) }
	}
	cases := []struct {
		name string
		spec agentSpec
		call func(*rig, wire.Binding) *httptest.ResponseRecorder
		want map[wire.Binding]string
		code int
		// exchanged: the request reached the behaviors (it was refused
		// by the agent, not before).
		exchanged bool
	}{
		{"part over the bound", agentSpec{maxPartBytes: 4}, sendMessage(message{text: "more than four bytes"}),
			map[wire.Binding]string{wire.BindingJSONRPC: "200 -32602", wire.BindingREST: "400 INVALID_ARGUMENT", wire.BindingGRPC: "InvalidArgument"}, wire.CodeInvalidParams, false},
		{"unknown task", agentSpec{}, sendMessage(message{taskID: "no-such-task"}),
			map[wire.Binding]string{wire.BindingJSONRPC: "200 -32001", wire.BindingREST: "404 NOT_FOUND", wire.BindingGRPC: "NotFound"}, wire.CodeTaskNotFound, true},
		// Capability before parameters: an operation the card does not
		// declare (push notifications) reaches the answer without its
		// parameters, and is refused as undeclared.
		{"undeclared, no parameters", agentSpec{}, getPushConfigWithoutID,
			map[wire.Binding]string{wire.BindingJSONRPC: "200 -32003", wire.BindingREST: "400 FAILED_PRECONDITION", wire.BindingGRPC: "FailedPrecondition"}, wire.CodePushNotSupported, true},
	}
	for _, b := range bindings {
		for _, tc := range cases {
			t.Run(string(b)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				rg := newRig(t, tc.spec)
				exchanged := false
				rg.agent.exchanged = func(context.Context) { exchanged = true }
				assert.Equal(t, tc.want[b], outcome(t, b, tc.call(rg, b)))
				assert.Equal(t, tc.exchanged, exchanged)
				resps := rg.entries(journal.EntryResponse)
				require.Len(t, resps, 1)
				assert.Equal(t, tc.code, resps[0].ErrorCode)
			})
		}
	}
}

// getPushConfigWithoutID asks for a push config without naming it (over
// HTTP+JSON, whose path names it, an empty one).
func getPushConfigWithoutID(rg *rig, b wire.Binding) *httptest.ResponseRecorder {
	switch b {
	case wire.BindingJSONRPC:
		return rg.call(b, http.MethodPost, "/", []byte(`{"jsonrpc":"2.0","id":1,"method":"GetTaskPushNotificationConfig","params":{}}`), nil)
	case wire.BindingREST:
		return rg.call(b, http.MethodGet, "/tasks/t1/pushNotificationConfigs/%20", nil, nil)
	}
	pb, err := proto.Marshal(&a2apb.GetTaskPushNotificationConfigRequest{})
	require.NoError(rg.t, err)
	return rg.call(b, http.MethodPost, "GetTaskPushNotificationConfig", a2apb.AppendMessage(nil, pb), nil)
}

// TestLegacySubscribeRoute: the pre-1.0 HTTP+JSON subscribe path is a 404
// unless a behavior serves it; when one does, it is named with the
// legacy-subscribe hook.
func TestLegacySubscribeRoute(t *testing.T) {
	t.Parallel()
	const serve = "subscribe-method:serve=legacy"
	for _, tc := range []struct {
		name  string
		bs    []string
		want  string
		acted []journal.ActedBehavior
	}{
		{"not served", nil, "404 NOT_FOUND", nil},
		// Served, it subscribes like the current route: to a task the
		// agent does not hold, TaskNotFound.
		{"served", []string{serve}, "404 NOT_FOUND", []journal.ActedBehavior{{Behavior: serve, Hook: journal.HookLegacySubscribe}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rg := newRig(t, agentSpec{behaviors: tc.bs})
			w := rg.call(wire.BindingREST, http.MethodGet, "/tasks/t1/subscribe", nil, nil)
			assert.Equal(t, tc.want, outcome(t, wire.BindingREST, w))
			reqs, resps := rg.entries(journal.EntryRequest), rg.entries(journal.EntryResponse)
			require.Len(t, reqs, 1)
			require.Len(t, resps, 1)
			assert.Equal(t, tc.acted, reqs[0].Acted)
			if tc.acted == nil {
				assert.Equal(t, wire.CodeMethodNotFound, resps[0].ErrorCode)
				assert.Contains(t, resps[0].Detail, "/tasks/{id}:subscribe", "the error points to the current route")
			} else {
				assert.Equal(t, wire.CodeTaskNotFound, resps[0].ErrorCode)
			}
		})
	}
}

// TestExtendedCard: GetExtendedAgentCard is refused by a card that does
// not declare it, and otherwise answers the configured card rendered with
// the URLs the client reached.
func TestExtendedCard(t *testing.T) {
	t.Parallel()
	get := []byte(`{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`)

	rg := newRig(t, agentSpec{})
	w := rg.call(wire.BindingJSONRPC, http.MethodPost, "/", get, nil)
	assert.Equal(t, "200 -32004", outcome(t, wire.BindingJSONRPC, w), "%s", w.Body)

	rg = newRig(t, agentSpec{extended: "the extended card"})
	w = rg.call(wire.BindingJSONRPC, http.MethodPost, "/", get, nil)
	assert.Equal(t, "200", outcome(t, wire.BindingJSONRPC, w), "%s", w.Body)
	assert.Contains(t, w.Body.String(), "the extended card")
}

// TestRemovedDynamicAgentEndsTheRequest: removing a dynamic agent (its
// context ends) ends its requests as a client leaving would: the
// behaviors see the request's context end, and a delayed answer is never
// written nor journaled. A configured agent's context does not end its
// requests.
func TestRemovedDynamicAgentEndsTheRequest(t *testing.T) {
	t.Parallel()
	removed, cancel := context.WithCancel(t.Context())
	cancel()
	for _, dynamic := range []bool{true, false} {
		rg := newRig(t, agentSpec{dynamic: dynamic, ctx: removed, behaviors: []string{"latency:delay=1ms"}})
		rg.agent.exchanged = func(ctx context.Context) {
			if !dynamic {
				assert.NoError(t, ctx.Err(), "a configured agent's request lives on")
				return
			}
			// The request's context ends on its own goroutine
			// (context.AfterFunc) once the agent's has.
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Error("the request's context did not end with its agent's")
			}
		}
		w := rg.send(wire.BindingJSONRPC, message{})
		assert.Equal(t, dynamic, w.Body.Len() == 0, "dynamic=%v: %s", dynamic, w.Body)
		assert.Equal(t, dynamic, len(rg.entries(journal.EntryResponse)) == 0, "dynamic=%v: no response is journaled for an ended request", dynamic)
	}
}

// TestOddRequestsNeverPanic: canonical requests no binding decodes into
// (no task id, no push config, an unknown operation) are answered with an
// error through the binding's reply, never a panic; a send without a
// message (every decoder refuses one, but the engine is asked too) among
// them.
func TestOddRequestsNeverPanic(t *testing.T) {
	t.Parallel()
	for _, req := range []*wire.Request{
		{Op: wire.OpGetTask},
		{Op: wire.OpCancelTask},
		{Op: wire.OpGetPushConfig},
		{Op: wire.OpDeletePush},
		{Op: wire.OpSetPushConfig},
		{Op: "no-such-op"},
		{Op: wire.OpSend},
	} {
		t.Run(string(req.Op), func(t *testing.T) {
			t.Parallel()
			rg := newRig(t, agentSpec{})
			req.Binding, req.Dialect, req.Method = wire.BindingJSONRPC, wire.V10, "Odd"
			rp := &recordingReply{}
			w := httptest.NewRecorder()
			require.NotPanics(t, func() {
				require.NoError(t, rg.s.Request(w, httptest.NewRequest(http.MethodPost, "/", nil), rg.agent, "", req, rp))
			})
			require.NotNil(t, rp.failed, "answered with an error")
			assert.Less(t, rp.failed.Code, 0, "a JSON-RPC error code")
			resps := rg.entries(journal.EntryResponse)
			require.Len(t, resps, 1)
			assert.Equal(t, rp.failed.Code, resps[0].ErrorCode)
			assert.True(t, strings.TrimSpace(rp.failed.Message) != "", "the error says why")
		})
	}
}
