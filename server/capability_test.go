package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// restReason returns the ErrorInfo reason of a google.rpc.Status body.
func restReason(t *testing.T, status int, body []byte) string {
	t.Helper()
	m := requireRESTStatus(t, status, body)
	details, _ := m["error"].(map[string]any)["details"].([]any)
	for _, d := range details {
		if r, ok := d.(map[string]any)["reason"].(string); ok {
			return r
		}
	}
	return ""
}

// Capability before parameters: an agent whose card declares neither
// pushNotifications nor streaming refuses those operations with
// PushNotificationNotSupportedError / UnsupportedOperationError whatever
// their parameters (bad parameters used to win with -32602), and refuses a
// send whose configuration asks for push notifications instead of silently
// delivering them.
func TestCapabilityBeforeParameters(t *testing.T) {
	t.Parallel()
	card := testCard(wire.V10, false)
	card.Capabilities.Streaming = false
	card03 := testCard(wire.V03, false)
	card03.Capabilities.Streaming = false
	h := start(t, server.Config{Seed: 3, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "v10", Card: card}, {Name: "v03", Card: card03}}})
	long := strings.Repeat("x", server.MaxIDBytes+1)
	hook := "http://127.0.0.1:1/hook"

	rpcCases := []struct {
		agent, method string
		params        any
		code          int
	}{
		{"v10", "CreateTaskPushNotificationConfig", map[string]any{}, wire.CodePushNotSupported},
		{"v10", "CreateTaskPushNotificationConfig", map[string]any{"taskId": []int{1}, "url": true}, wire.CodePushNotSupported},
		{"v10", "GetTaskPushNotificationConfig", map[string]any{"taskId": 5}, wire.CodePushNotSupported},
		{"v10", "GetTaskPushNotificationConfig", map[string]any{"taskId": long, "id": "x"}, wire.CodePushNotSupported},
		{"v10", "ListTaskPushNotificationConfigs", map[string]any{"taskId": ""}, wire.CodePushNotSupported},
		{"v10", "DeleteTaskPushNotificationConfig", map[string]any{}, wire.CodePushNotSupported},
		{"v10", "SendMessage", map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
			"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hook}}}, wire.CodePushNotSupported},
		{"v03", "tasks/pushNotificationConfig/set", map[string]any{}, wire.CodePushNotSupported},
		{"v03", "tasks/pushNotificationConfig/get", map[string]any{"id": 7}, wire.CodePushNotSupported},
		{"v03", "message/send", map[string]any{"message": map[string]any{"kind": "message", "messageId": "m2", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "hi"}}},
			"configuration": map[string]any{"pushNotificationConfig": map[string]any{"url": hook}}}, wire.CodePushNotSupported},
	}
	for _, c := range rpcCases {
		var hdr map[string]string
		if c.agent == "v10" {
			hdr = v1
		}
		r, raw := h.rpc("/agents/"+c.agent+"/", c.method, c.params, hdr)
		require.NotNil(t, r.Error, "%s %s: %s", c.agent, c.method, raw)
		assert.Equal(t, c.code, r.Error.Code, "%s %s %v: %s", c.agent, c.method, c.params, raw)
	}

	// Streaming methods with bad parameters: the refusal is the single
	// event of the stream.
	for _, c := range []struct{ agent, method, params string }{
		{"v10", "SendStreamingMessage", `{}`},
		{"v10", "SubscribeToTask", `{"id":5}`},
		{"v03", "message/stream", `{"message":7}`},
		{"v03", "tasks/resubscribe", `{}`},
	} {
		var hdr map[string]string
		if c.agent == "v10" {
			hdr = v1
		}
		_, _, body, frames := h.openStream("/agents/"+c.agent+"/", []byte(`{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":`+c.params+`}`), hdr)
		raw := body
		if len(frames) > 0 {
			raw = frames[0]
		}
		var r rpcResponse
		require.NoError(t, json.Unmarshal(raw, &r), "%s: %s", c.method, raw)
		require.NotNil(t, r.Error, "%s: %s", c.method, raw)
		assert.Equal(t, wire.CodeUnsupportedOperation, r.Error.Code, "%s: %s", c.method, raw)
	}

	// HTTP+JSON: 400 with the capability's ErrorInfo reason.
	restCases := []struct {
		method, path, body, reason string
	}{
		{http.MethodPost, "/tasks/t1/pushNotificationConfigs", `{not json`, "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{http.MethodPost, "/tasks/t1/pushNotificationConfigs", `{"url":5}`, "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{http.MethodGet, "/tasks/" + long + "/pushNotificationConfigs", "", "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{http.MethodGet, "/tasks/t1/pushNotificationConfigs/%20", "", "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{http.MethodDelete, "/tasks/t1/pushNotificationConfigs/x", "", "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{http.MethodPost, "/message:send", `{"message":{"messageId":"m3","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"taskPushNotificationConfig":{"url":"` + hook + `"}}}`, "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{http.MethodPost, "/message:stream", `{"message":5}`, "UNSUPPORTED_OPERATION"},
		{http.MethodGet, "/tasks/" + long + ":subscribe", "", "UNSUPPORTED_OPERATION"},
	}
	for _, c := range restCases {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		status, _, b := h.do(c.method, "/agents/v10/rest"+c.path, body, v1)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s: %s", c.method, c.path, b)
		assert.Equal(t, c.reason, restReason(t, status, b), "%s %s: %s", c.method, c.path, b)
	}
}
