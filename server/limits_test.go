package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestIDLengthLimitBothBindings: GetTask with a 3 MiB unknown id over
// JSON-RPC kept ~10 MB per call in the journal and answered 6 MiB (REST
// capped ids at 256 bytes, JSON-RPC did not). Every id now has one bound on
// both bindings, the answer does not echo it, and the journal keeps it cut.
func TestIDLengthLimitBothBindings(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 9, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
	huge := strings.Repeat("é", 3<<20/2) // 3 MiB, multi-byte so a cut could split a rune

	r, raw := h.rpc("/", "GetTask", map[string]any{"id": huge}, v1)
	require.NotNil(t, r.Error)
	assert.Equal(t, wire.CodeInvalidParams, r.Error.Code)
	assert.Less(t, len(raw), 1024, "the answer echoes the id")

	r, raw = h.rpc("/", "SendMessage", map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER",
		"taskId": huge, "parts": []any{map[string]any{"text": "hi"}}}}, v1)
	require.NotNil(t, r.Error)
	assert.Equal(t, wire.CodeInvalidParams, r.Error.Code)
	assert.Contains(t, r.Error.Message, "message.taskId")
	assert.Less(t, len(raw), 1024)

	body, _ := json.Marshal(map[string]any{"message": map[string]any{"messageId": strings.Repeat("m", 300), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "hi"}}}})
	status, _, b := h.post("/rest/message:send", body, v1)
	assert.Equal(t, http.StatusBadRequest, status, "%s", b)
	assert.Contains(t, string(b), "message.messageId")

	// Exactly the bound is fine.
	_, e := newClient(t, h, dialectCases[0]).get(strings.Repeat("t", server.MaxIDBytes), nil)
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeTaskNotFound, e.Code)

	var sizes int
	for _, en := range h.srv.Journal().Entries() {
		for _, v := range []string{en.TaskID, en.RefTaskID, en.ContextID, en.MessageID, en.Detail, en.Path} {
			sizes += len(v)
			assert.True(t, len(v) < 2048, "a journal field of %d bytes", len(v))
			assert.NotContains(t, v, "\ufffd")
		}
	}
	assert.Less(t, sizes, 16<<10, "the journal keeps the over-long ids")
	var cut bool
	for _, en := range h.srv.Journal().Entries() {
		cut = cut || strings.Contains(en.TaskID+en.RefTaskID, "…(truncated, 3145728 bytes)")
	}
	assert.True(t, cut, "the journal says the id was cut and how long it was")
}

// TestMessageAndPartSizeLimits: one bound for a part and one for a message,
// on both bindings.
func TestMessageAndPartSizeLimits(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 9, StepDelay: -1, MaxPartBytes: 1000, MaxMessageBytes: 1500, Agents: agentsFor(dialectCases[0], false)})
	send := func(parts ...string) map[string]any {
		ps := []any{}
		for _, p := range parts {
			ps = append(ps, map[string]any{"text": p})
		}
		return map[string]any{"message": map[string]any{"messageId": "m", "role": "ROLE_USER", "parts": ps}}
	}
	for _, tc := range []struct {
		name  string
		parts []string
		field string
	}{
		{"a part too large", []string{"a", strings.Repeat("x", 1001)}, "message.parts[1]"},
		{"a message too large", []string{strings.Repeat("x", 800), strings.Repeat("y", 800)}, "message:"},
	} {
		r, _ := h.rpc("/", "SendMessage", send(tc.parts...), v1)
		require.NotNil(t, r.Error, tc.name)
		assert.Equal(t, wire.CodeInvalidParams, r.Error.Code, tc.name)
		assert.Contains(t, r.Error.Message, tc.field, tc.name)
		body, _ := json.Marshal(send(tc.parts...))
		status, _, b := h.post("/rest/message:send", body, v1)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", tc.name, b)
	}
	r, raw := h.rpc("/", "SendMessage", send(strings.Repeat("x", 700), strings.Repeat("y", 700)), v1)
	assert.Nil(t, r.Error, "within both bounds: %s", raw)
}

// TestPushConfigsPerTaskBounded: configs created under ever new ids grew a
// task without bound; past MaxPushConfigsPerTask a new one is refused, and
// replacing one by its id still works.
func TestPushConfigsPerTaskBounded(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 21, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
	cl := newClient(t, h, dialectCases[0])
	tk := cl.mustSend(sendOpts{})
	set := func(id string) *rpcError {
		_, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "id": id, "url": "http://127.0.0.1:9/hook"})
		return e
	}
	for i := range server.MaxPushConfigsPerTask {
		require.Nil(t, set("c"+strconv.Itoa(i)), "config %d", i)
	}
	e := set("one-too-many")
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeInvalidParams, e.Code)
	assert.Nil(t, set("c0"), "replacing a config by its id")
}
