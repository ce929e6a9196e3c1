package testkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

func postHook(t *testing.T, c *http.Client, url string, body string, hdr map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func hookClient(t *testing.T, timeout time.Duration) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: timeout}
}

func TestWebhookDecodesEveryDialect(t *testing.T) {
	t.Parallel()
	w := testkit.Webhook(t)
	c := hookClient(t, 5*time.Second)
	cases := []struct {
		body  string
		hdr   map[string]string
		kind  string
		id    string
		state wire.TaskState
		token string
	}{
		{`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`,
			map[string]string{"A2A-Notification-Token": "a"}, "status", "t1", wire.StateInputRequired, "a"},
		{`{"task":{"id":"t2","contextId":"c2","status":{"state":"TASK_STATE_COMPLETED"}}}`,
			map[string]string{"X-A2A-Notification-Token": "b"}, "task", "t2", wire.StateCompleted, "b"},
		{`{"artifactUpdate":{"taskId":"t2","contextId":"c2","artifact":{"artifactId":"x"}}}`,
			map[string]string{"Authorization": "Bearer c"}, "artifact", "t2", "", "c"},
		{`{"kind":"task","id":"t3","contextId":"c3","status":{"state":"working"}}`, nil, "task", "t3", wire.StateWorking, ""},
		{`{"kind":"status-update","taskId":"t3","contextId":"c3","status":{"state":"auth-required"},"final":true}`, nil, "status", "t3", wire.StateAuthRequired, ""},
		{`{"id":"t4","sessionId":"s4","status":{"state":"completed"}}`, nil, "task", "t4", wire.StateCompleted, ""},
		{`not json`, nil, "", "", "", ""},
	}
	for _, tc := range cases {
		assert.Equal(t, http.StatusOK, postHook(t, c, w.URL, tc.body, tc.hdr))
	}
	got := w.Received()
	require.Len(t, got, len(cases))
	for i, tc := range cases {
		assert.Equal(t, tc.kind, got[i].Kind, tc.body)
		assert.Equal(t, tc.id, got[i].TaskID, tc.body)
		assert.Equal(t, tc.state, got[i].State, tc.body)
		assert.Equal(t, tc.token, got[i].Token, tc.body)
	}
	assert.Equal(t, "s4", got[5].ContextID)
	w.AssertReceivedStates(t, "t3", wire.StateWorking, wire.StateAuthRequired)
	task, ok := w.Ledger().Task("t1")
	require.True(t, ok, "the receiver feeds its ledger")
	assert.Equal(t, wire.StateInputRequired, task.Last())
}

func TestWebhookAnswersErrorsAndDelays(t *testing.T) {
	t.Parallel()
	w := testkit.Webhook(t)
	c := hookClient(t, 5*time.Second)
	w.FailNext(2, http.StatusServiceUnavailable)
	body := `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`
	assert.Equal(t, http.StatusServiceUnavailable, postHook(t, c, w.URL, body, nil))
	assert.Equal(t, http.StatusServiceUnavailable, postHook(t, c, w.URL, body, nil))
	assert.Equal(t, http.StatusOK, postHook(t, c, w.URL, body, nil))
	w.RespondWith(http.StatusUnauthorized)
	assert.Equal(t, http.StatusUnauthorized, postHook(t, c, w.URL, body, nil))

	w.SetDelay(time.Hour)
	short := hookClient(t, 50*time.Millisecond)
	_, err := short.Post(w.URL, "application/json", bytes.NewReader([]byte(body)))
	require.Error(t, err, "the sender's timeout fires while the receiver holds the answer")
	// Close releases held requests at once; goleak (TestMain) checks that
	// nothing is left.
	done := make(chan struct{})
	go func() { w.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on a held request")
	}
}

// AssertFellBackToPolling on a real mock whose terminal push is dropped:
// it fails (with the caller's message, and its Require twin stops the
// test) until the client polls the task after its terminal state.
func TestAssertFellBackToPolling(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithSeed(5), testkit.WithStepDelay(-1),
		testkit.WithCardChange("agent", func(c *cards.Card) {
			c.Capabilities.PushNotifications = true
			for i := range c.Skills {
				c.Skills[i].NeedsInput = false
			}
		}),
		testkit.WithBehavior("agent", "push-drop:terminal=true"))
	w := testkit.Webhook(t)
	c := hookClient(t, 5*time.Second)
	rpc := func(method string, params any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, mock.URL+"/", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Nil(t, out["error"])
		return out["result"].(map[string]any)
	}
	res := rpc("SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": w.URL}},
	})
	id := res["task"].(map[string]any)["id"].(string)
	require.True(t, w.WaitForState(id, wire.StateWorking, 5*time.Second))

	// The journal records a delivery once the webhook has answered it.
	require.Eventually(t, func() bool { return len(testkit.PushedStates(mock.Journal(), id)) == 2 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, w.States(id), testkit.PushedStates(mock.Journal(), id), "the journal's deliveries are what the webhook received")
	fromJournal := &stopT{}
	assert.False(t, testkit.AssertFellBackToPollingFromJournal(fromJournal, mock.Journal(), id, "client %s", "A"), "no GetTask yet")

	r := &stopT{}
	assert.False(t, testkit.AssertFellBackToPolling(r, w, mock.Journal(), id, "client %s", "A"), "no GetTask yet")
	assert.Equal(t, afterTrace(r.errs), afterTrace(fromJournal.errs), "the journal's form says the same")
	assert.NotEmpty(t, afterTrace(r.errs))
	msg := strings.Join(r.errs, "\n")
	assert.Contains(t, msg, "client A", "the caller's message is part of the failure")
	assert.Contains(t, msg, "did not fall back to polling")
	assert.Contains(t, msg, "client did: created it with SendMessage")
	assert.Contains(t, msg, "the client waited for a push that never came; pushed states submitted → working")
	r = &stopT{}
	testkit.RequireFellBackToPolling(r, w, mock.Journal(), id, "client %s", "B")
	assert.True(t, r.stopped, "the Require twin stops the test")
	assert.Contains(t, strings.Join(r.errs, "\n"), "client B")

	rpc("GetTask", map[string]any{"id": id})
	assert.True(t, testkit.AssertFellBackToPolling(t, w, mock.Journal(), id))
	assert.True(t, testkit.AssertFellBackToPollingFromJournal(t, mock.Journal(), id))
	testkit.RequireFellBackToPollingFromJournal(t, mock.Journal(), id)
	r = &stopT{}
	testkit.RequireFellBackToPolling(r, w, mock.Journal(), id)
	assert.False(t, r.stopped)
	assert.Empty(t, r.errs)
}
