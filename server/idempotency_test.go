package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// sendV10 sends a v1.0 message and returns the answered task.
func sendV10(h *harness, msg map[string]any, cfg map[string]any) wireTask {
	h.t.Helper()
	params := map[string]any{"message": msg}
	if cfg != nil {
		params["configuration"] = cfg
	}
	r, b := h.rpc("/", "SendMessage", params, map[string]string{"A2A-Version": "1.0"})
	require.Nil(h.t, r.Error, "%s", b)
	var res struct {
		Task json.RawMessage `json:"task"`
	}
	require.NoError(h.t, json.Unmarshal(r.Result, &res))
	return parseTask(h.t, wire.V10, res.Task)
}

func msgV10(id, text, skill, taskID, ctxID string) map[string]any {
	m := map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}},
		"metadata": map[string]any{"skillId": skill}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	if ctxID != "" {
		m["contextId"] = ctxID
	}
	return m
}

func decisions(h *harness, kind string) int {
	n := 0
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == server.EntryDecision && len(e.Detail) >= len(kind) && e.Detail[:len(kind)] == kind {
			n++
		}
	}
	return n
}

// TestRepeatedMessageIDIsARetry states the honest agent's rule: messageId
// is an idempotency key. A resent message gets the task its first sending
// created, nothing runs twice; the same text under a new id is a new task.
func TestRepeatedMessageIDIsARetry(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 3, StepDelay: 20 * time.Millisecond,
		Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})

	first := sendV10(h, msgV10("pay-1", "pay", "echo", "", ""), map[string]any{"returnImmediately": true})
	assert.NotEqual(t, wire.StateCompleted, first.State)
	again := sendV10(h, msgV10("pay-1", "pay", "echo", "", ""), nil)
	assert.Equal(t, first.ID, again.ID, "the retry is answered with the first task")
	assert.Equal(t, wire.StateCompleted, again.State, "a blocking retry waits for it, as the first send would have")
	assert.Equal(t, 1, decisions(h, "duplicate"))

	other := sendV10(h, msgV10("pay-2", "pay", "echo", "", ""), nil)
	assert.NotEqual(t, first.ID, other.ID, "a new messageId is a new message")

	// A stream re-attaches: the task as it stands, and the end.
	frames := h.streamFrames("/", rpcBody("SendStreamingMessage", map[string]any{"message": msgV10("pay-1", "pay", "echo", "", "")}),
		map[string]string{"A2A-Version": "1.0"})
	require.Len(t, frames, 1)
	var env rpcResponse
	require.NoError(t, json.Unmarshal(frames[0], &env))
	ev := parseEvent(t, wire.V10, env.Result)
	assert.Equal(t, first.ID, ev.TaskID)

	// A resent continuation adds nothing to the task's history.
	ask := sendV10(h, msgV10("ask-1", "book", "ask", "", ""), nil)
	require.Equal(t, wire.StateInputRequired, ask.State)
	done := sendV10(h, msgV10("ask-2", "blue", "ask", ask.ID, ask.ContextID), nil)
	require.Equal(t, wire.StateCompleted, done.State)
	retry := sendV10(h, msgV10("ask-2", "blue", "ask", ask.ID, ask.ContextID), nil)
	assert.Equal(t, done.ID, retry.ID)
	assert.Equal(t, done.History, retry.History, "no second copy of the message")
	assert.Equal(t, 3, decisions(h, "duplicate"))

	// The same id naming another task is not a retry of the first.
	r, _ := h.rpc("/", "SendMessage", map[string]any{"message": msgV10("pay-1", "pay", "echo", ask.ID, "")}, map[string]string{"A2A-Version": "1.0"})
	require.NotNil(t, r.Error)
	assert.Equal(t, wire.CodeUnsupportedOperation, r.Error.Code, "a message to a terminal task, as for any new message")
}
