// Package gateway_test shows why a client behind an id-rewriting gateway
// must reconcile by the gateway's correlation id rather than by task id.
package gateway_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/gateway"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startGateway serves a gateway in front of upstream on 127.0.0.1.
func startGateway(t *testing.T, upstream string) (string, *gateway.Gateway) {
	t.Helper()
	g, err := gateway.New(gateway.Config{Upstream: upstream, Seed: 9})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return "http://" + ln.Addr().String(), g
}

// run sends one message through the gateway with a push config and
// returnImmediately, as a client whose update channel is push, and records
// what it sees (the reply, then the pushes, then with poll one GetTask) in
// ledger. It returns the task id the reply showed.
func run(t *testing.T, ledger *reconcile.Ledger, poll bool) string {
	mock := testkit.Start(t, testkit.WithSeed(4), testkit.WithStepDelay(20*time.Millisecond),
		testkit.WithCardChange("agent", func(c *cards.Card) {
			c.Capabilities.PushNotifications = true
			for i := range c.Skills {
				c.Skills[i].NeedsInput = false
			}
		}))
	gw, _ := startGateway(t, mock.URL)
	hook := testkit.Webhook(t, testkit.WithWebhookLedger(ledger))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	call := func(method string, params any) (map[string]any, string) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req, err := http.NewRequest(http.MethodPost, gw+"/", bytes.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var env struct {
			Result map[string]any `json:"result"`
			Error  any            `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		require.Nil(t, env.Error)
		return env.Result, resp.Header.Get(gateway.CorrelationHeader)
	}
	observe := func(src reconcile.Source, task map[string]any, header string) string {
		raw, _ := json.Marshal(task)
		var tk struct {
			ID, ContextID string
			Status        struct{ State string }
			Metadata      map[string]any
		}
		require.NoError(t, json.Unmarshal(raw, &tk))
		o := reconcile.Observation{TaskID: tk.ID, ContextID: tk.ContextID, Source: src,
			State: wire.TaskState(map[string]string{"TASK_STATE_SUBMITTED": "submitted", "TASK_STATE_WORKING": "working", "TASK_STATE_COMPLETED": "completed"}[tk.Status.State])}
		o.CorrelationID, _ = tk.Metadata["correlationId"].(string)
		assert.Equal(t, header, o.CorrelationID, "header and metadata agree")
		require.NoError(t, ledger.Observe(o))
		return tk.ID
	}

	res, corr := call("SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": hook.URL, "token": "t"}},
	})
	replyID := observe(reconcile.SourceSendResponse, res["task"].(map[string]any), corr)
	require.True(t, hook.WaitFor(5*time.Second, func(ps []testkit.Push) bool {
		return len(ps) > 0 && ps[len(ps)-1].State == wire.StateCompleted
	}), "the terminal push arrives through the gateway")
	pushes := hook.Received()
	assert.NotEqual(t, replyID, pushes[0].TaskID, "the gateway gives the push channel its own task id")
	assert.Equal(t, corr, pushes[0].CorrelationID)
	assert.Equal(t, corr, pushes[0].Header.Get(gateway.CorrelationHeader))

	if poll {
		// The reply's id still works for requests: the gateway maps it back.
		res, corr = call("GetTask", map[string]any{"id": replyID})
		assert.Equal(t, replyID, observe(reconcile.SourcePoll, res, corr))
	}
	return replyID
}

func TestClientKeyedByTaskIDSeesOrphans(t *testing.T) {
	t.Parallel()
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{Declared: reconcile.Declared{PushOnly: true}})
	replyID := run(t, ledger, false)
	// Keyed by task id, the pushes file under another task than the reply:
	// the task the client started never leaves submitted in its ledger,
	// and a task it never started completed.
	assert.Len(t, ledger.Tasks(), 2, "one ledger entry per channel")
	orphans := ledger.Unreconciled()
	require.Len(t, orphans, 1)
	assert.Equal(t, replyID, orphans[0].TaskID())
	assert.Equal(t, wire.StateSubmitted, orphans[0].Last())
}

func TestClientKeyedByCorrelationIDReconciles(t *testing.T) {
	t.Parallel()
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{Key: reconcile.ByCorrelationID, Declared: reconcile.Declared{PushOnly: true}})
	run(t, ledger, true)
	tasks := ledger.Tasks()
	require.Len(t, tasks, 1, "one task, whatever id each channel showed")
	assert.Equal(t, reconcile.OutcomeCompleted, tasks[0].Outcome)
	assert.Len(t, tasks[0].TaskIDs, 2, "the reply/poll alias and the push alias")
	assert.Empty(t, ledger.Unreconciled())
}
