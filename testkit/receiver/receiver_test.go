package receiver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit/receiver"
	"github.com/a2amock/a2amock/wire"
)

func post(t *testing.T, url, body string, header ...string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestReceiverReadsEveryDialectAndFailsOnPurpose: a v1.0 status update and
// a v0.3 task are read into canonical states with their tokens; FailNext
// answers the next push with an error, then the receiver answers 200.
func TestReceiverReadsEveryDialectAndFailsOnPurpose(t *testing.T) {
	t.Parallel()
	w := receiver.Webhook(t)
	w.FailNext(1, http.StatusServiceUnavailable)
	assert.Equal(t, http.StatusServiceUnavailable, post(t, w.URL, `{"statusUpdate":{"taskId":"t1","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`,
		"A2A-Notification-Token", "tok"))
	assert.Equal(t, http.StatusOK, post(t, w.URL, `{"kind":"task","id":"t1","contextId":"c","status":{"state":"completed"}}`,
		"X-A2A-Notification-Token", "tok03"))
	require.True(t, w.WaitFor(5*time.Second, func(ps []receiver.Push) bool { return len(ps) == 2 }))
	got := w.Received()
	assert.Equal(t, "tok", got[0].Token)
	assert.Equal(t, "tok03", got[1].Token)
	assert.Equal(t, []wire.TaskState{wire.StateWorking, wire.StateCompleted}, w.States("t1"))
	w.RequireReceivedStates(t, "t1", wire.StateWorking, wire.StateCompleted)
}
