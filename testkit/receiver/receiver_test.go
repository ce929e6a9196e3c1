package receiver_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
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

// failT records an assertion's failure, where testing.T would place it
// (the first frame up from Errorf whose function did not call Helper),
// and whether it stopped the test.
type failT struct {
	msgs    []string
	at      []string
	helpers map[string]bool
	stopped bool
}

func (f *failT) Helper() {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	frame, _ := runtime.CallersFrames(pc[:]).Next()
	f.helpers[frame.Function] = true
}

func (f *failT) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		fr, more := frames.Next()
		if !f.helpers[fr.Function] || !more {
			f.at = append(f.at, filepath.Base(fr.File))
			return
		}
	}
}

func (f *failT) FailNow() { f.stopped = true }

// AssertReceivedStates passes on the distinct states pushed; it takes
// testify's T, and RequireReceivedStates fails at the test's line, in the
// layout of testkit's assertions, and stops the test.
func TestAssertReceivedStatesFails(t *testing.T) {
	t.Parallel()
	w := receiver.Webhook(t)
	for _, state := range []string{"TASK_STATE_WORKING", "TASK_STATE_WORKING", "TASK_STATE_FAILED"} {
		require.Equal(t, http.StatusOK, post(t, w.URL, `{"statusUpdate":{"taskId":"t1","contextId":"c","status":{"state":"`+state+`"}}}`))
	}
	require.True(t, w.WaitFor(5*time.Second, func(ps []receiver.Push) bool { return len(ps) == 3 }))
	assert.True(t, w.AssertReceivedStates(t, "t1", wire.StateWorking, wire.StateFailed), "repeats are one state")

	// A failure waits 5s for the states to arrive, then reports (its
	// message is check's, tested there).
	ft := &failT{helpers: map[string]bool{}}
	w.RequireReceivedStates(ft, "t1", wire.StateWorking, wire.StateCompleted)
	assert.True(t, ft.stopped)
	require.Len(t, ft.msgs, 1)
	assert.Contains(t, ft.msgs[0], `task "t1": pushed states differ`)
	assert.Equal(t, []string{"receiver_test.go"}, ft.at, "the failure is reported at the test's line")
}
