package server_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

func v10Message(id, taskID string) map[string]any {
	m := map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	return map[string]any{"message": m}
}

// actedOn returns the Acted list of the last entry of kind in the journal.
func actedOn(t *testing.T, h *harness, kind server.EntryKind) ([]string, []server.ActedBehavior) {
	t.Helper()
	var e server.Entry
	for _, x := range h.srv.Journal().Entries() {
		if x.Kind == kind {
			e = x
		}
	}
	require.Equal(t, kind, e.Kind)
	return e.Behaviors, e.Acted
}

// TestRequestEntryNamesWhoActed: each behavior that changed anything about
// a request is named on the request's entry with the hook it acted
// through, on JSON-RPC and HTTP+JSON (gRPC: TestGRPCJournalIsWhatTheClientReceived
// and TestGRPCRequestEntryNamesWhoActed); a behavior in scope that left the
// request as it was is applied (Behaviors) but did not act.
func TestRequestEntryNamesWhoActed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec, hook string
		call       func(h *harness)
	}{
		{"skip-working", server.HookPlan, func(h *harness) { h.rpc("/", "SendMessage", v10Message("m1", ""), v1) }},
		{"skip-working", server.HookPlan, func(h *harness) {
			h.post("/rest/message:send", []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), v1)
		}},
		{"mint-task-for-unknown-id", server.HookDecide, func(h *harness) { h.rpc("/", "SendMessage", v10Message("m1", "nope"), v1) }},
		{"wrong-error-code", server.HookResult, func(h *harness) { h.rpc("/", "GetTask", map[string]any{"id": "nope"}, v1) }},
		{"wrong-error-code", server.HookResult, func(h *harness) { h.do("GET", "/rest/tasks/nope", nil, v1) }},
		{"latency:delay=1ms", server.HookDelay, func(h *harness) { h.rpc("/", "GetTask", map[string]any{"id": "nope"}, v1) }},
		{"http-error:status=503", server.HookReject, func(h *harness) { h.post("/", rpcBody("GetTask", map[string]any{"id": "nope"}), v1) }},
		{"connection-reset", server.HookTransport, func(h *harness) {
			req := rpcBody("GetTask", map[string]any{"id": "nope"})
			if resp, err := h.client.Post(h.url+"/", "application/json", bytes.NewReader(req)); err == nil {
				resp.Body.Close()
			}
		}},
	} {
		t.Run(tc.spec+" "+tc.hook, func(t *testing.T) {
			t.Parallel()
			b, err := behaviors.Catalogue().Parse(tc.spec)
			require.NoError(t, err)
			h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Card: testCard(wire.V10, false), Behaviors: []behaviors.Behavior{b}}}})
			tc.call(h)
			applied, acted := actedOn(t, h, server.EntryRequest)
			assert.Equal(t, []string{tc.spec}, applied)
			assert.Contains(t, acted, server.ActedBehavior{Behavior: tc.spec, Hook: tc.hook})
		})
	}
	t.Run("in scope, changed nothing", func(t *testing.T) {
		t.Parallel()
		b, err := behaviors.Catalogue().Parse("wrong-error-code")
		require.NoError(t, err)
		h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Card: testCard(wire.V10, false), Behaviors: []behaviors.Behavior{b}}}})
		h.rpc("/", "SendMessage", v10Message("m1", ""), v1)
		applied, acted := actedOn(t, h, server.EntryRequest)
		assert.Equal(t, []string{"wrong-error-code"}, applied)
		assert.Empty(t, acted, "no error to rewrite")
	})
	t.Run("card", func(t *testing.T) {
		t.Parallel()
		b, err := behaviors.Catalogue().Parse("card-overclaims")
		require.NoError(t, err)
		h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Card: testCard(wire.V10, false), Behaviors: []behaviors.Behavior{b}}}})
		h.do("GET", "/.well-known/agent-card.json", nil, nil)
		_, acted := actedOn(t, h, server.EntryCard)
		assert.Contains(t, acted, server.ActedBehavior{Behavior: "card-overclaims", Hook: server.HookCard})
	})
}

// TestGRPCRequestEntryNamesWhoActed: the gRPC binding names them too.
func TestGRPCRequestEntryNamesWhoActed(t *testing.T) {
	t.Parallel()
	h, c := grpcRig(t, false, "skip-working")
	_, err := c.SendMessage(grpcCtx(t), grpcSend("x"))
	require.NoError(t, err)
	_, acted := actedOn(t, h, server.EntryRequest)
	assert.Equal(t, []server.ActedBehavior{{Behavior: "skip-working", Hook: server.HookPlan}}, acted)
}

// TestRequestEntryNamesPushBehaviors: a push behavior that changed the
// notifications of the task a request created is named on that request,
// once the notification it changed was sent.
func TestRequestEntryNamesPushBehaviors(t *testing.T) {
	t.Parallel()
	wh := newHook(t)
	b, err := behaviors.Catalogue().Parse("push-drop:rate=1")
	require.NoError(t, err)
	h := start(t, server.Config{Seed: 31, StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Card: testCard(wire.V10, true), Behaviors: []behaviors.Behavior{b}}}})
	r, raw := h.rpc("/", "SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": wh.srv.URL + "/hook"}},
	}, v1)
	require.Nil(t, r.Error, "%s", raw)
	waitFor(t, "acted", func() bool {
		_, acted := actedOn(t, h, server.EntryRequest)
		return len(acted) > 0
	})
	_, acted := actedOn(t, h, server.EntryRequest)
	assert.Equal(t, []server.ActedBehavior{{Behavior: "push-drop:rate=1", Hook: server.HookPush}}, acted)
}
