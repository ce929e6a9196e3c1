// Package receiver is testkit's webhook receiver: an HTTP server on
// 127.0.0.1 that takes the push notifications an agent sends, in any
// dialect, records them (in a reconcile.Ledger when given one), and can
// answer with errors or delays on purpose.
//
// Package testkit exports it under the same names (testkit.Webhook,
// testkit.WebhookReceiver, ...).
package receiver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit/internal/check"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// Push is one notification a WebhookReceiver received, decoded with the
// receiver's own minimal reading of every dialect's payload (a v1.0
// StreamResponse, a v0.2/v0.3 Task or update event, a v0.1 Task).
type Push struct {
	// Header holds the request's headers as sent.
	Header http.Header
	Body   []byte
	// Kind is task, status, artifact or message ("" when unreadable).
	Kind      string
	TaskID    string
	ContextID string
	// State is the task state the payload carries, in canonical spelling.
	State wire.TaskState
	// Token is the notification token, read from any of the header
	// spellings the SDKs use: A2A-Notification-Token,
	// X-A2A-Notification-Token, or a bare Authorization token.
	Token string
	// CorrelationID is the payload's metadata correlationId or the
	// X-Correlation-Id header.
	CorrelationID string
	// Status is what the receiver answered.
	Status int
	At     time.Time
}

// WebhookReceiver is an in-process push-notification receiver on
// 127.0.0.1. It records every notification, feeds a push-only
// reconciliation ledger, and can answer with errors or delays to test the
// sender's side.
type WebhookReceiver struct {
	// URL is the webhook's address, to put in a push config.
	URL string

	srv    *http.Server
	ln     net.Listener
	done   chan struct{}
	closed sync.Once
	wg     sync.WaitGroup
	ledger *reconcile.Ledger

	mu       sync.Mutex
	received []Push
	diverged []error
	notify   chan struct{}
	status   int
	failNext int
	failWith int
	delay    time.Duration
}

// WebhookOption configures Webhook.
type WebhookOption func(*WebhookReceiver)

// WithWebhookLedger feeds ledger instead of the receiver's own push-only
// ledger (e.g. one keyed ByCorrelationID behind a gateway).
func WithWebhookLedger(l *reconcile.Ledger) WebhookOption {
	return func(w *WebhookReceiver) { w.ledger = l }
}

// maxHold bounds how long a delayed answer holds a request, so a receiver
// configured to hang cannot keep a goroutine past the test.
const maxHold = 30 * time.Second

// Webhook starts a receiver on 127.0.0.1:0, closed by t.Cleanup.
func Webhook(t testing.TB, opts ...WebhookOption) *WebhookReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit.Webhook: %v", err)
		return nil
	}
	w := &WebhookReceiver{
		URL:    "http://" + ln.Addr().String() + "/hook",
		ln:     ln,
		done:   make(chan struct{}),
		notify: make(chan struct{}),
		status: http.StatusOK,
	}
	for _, o := range opts {
		o(w)
	}
	if w.ledger == nil {
		w.ledger = reconcile.NewLedger(reconcile.LedgerConfig{Declared: reconcile.Declared{PushOnly: true}})
	}
	w.srv = &http.Server{Handler: http.HandlerFunc(w.serve), ReadHeaderTimeout: 5 * time.Second}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		_ = w.srv.Serve(ln)
	}()
	t.Cleanup(w.Close)
	return w
}

// Close stops the receiver; held requests are released first.
func (w *WebhookReceiver) Close() {
	w.closed.Do(func() {
		close(w.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := w.srv.Shutdown(ctx); err != nil {
			_ = w.srv.Close()
		}
		w.wg.Wait()
	})
}

// RespondWith makes every later notification answered with status.
func (w *WebhookReceiver) RespondWith(status int) {
	w.mu.Lock()
	w.status = status
	w.mu.Unlock()
}

// FailNext answers the next n notifications with status (e.g. 503), then
// goes back to the usual answer: for testing a sender's retries.
func (w *WebhookReceiver) FailNext(n, status int) {
	w.mu.Lock()
	w.failNext, w.failWith = n, status
	w.mu.Unlock()
}

// SetDelay holds every later answer back by d (at most 30s, and never past
// Close): for testing a sender's timeout.
func (w *WebhookReceiver) SetDelay(d time.Duration) {
	w.mu.Lock()
	w.delay = d
	w.mu.Unlock()
}

// Ledger returns the ledger the receiver feeds.
func (w *WebhookReceiver) Ledger() *reconcile.Ledger { return w.ledger }

// Divergences returns the divergences the ledger reported while fed.
func (w *WebhookReceiver) Divergences() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.diverged)
}

// Received returns the notifications received so far, in arrival order.
func (w *WebhookReceiver) Received() []Push {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.received)
}

// ReceivedFor returns the notifications about task id.
func (w *WebhookReceiver) ReceivedFor(taskID string) []Push {
	var out []Push
	for _, p := range w.Received() {
		if p.TaskID == taskID {
			out = append(out, p)
		}
	}
	return out
}

// States returns the states received for task id, in arrival order,
// repeats included.
func (w *WebhookReceiver) States(taskID string) []wire.TaskState {
	var out []wire.TaskState
	for _, p := range w.ReceivedFor(taskID) {
		if p.State != wire.StateUnspecified {
			out = append(out, p.State)
		}
	}
	return out
}

// WaitFor waits until cond holds for the notifications received, or
// timeout passes; it reports whether cond held.
func (w *WebhookReceiver) WaitFor(timeout time.Duration, cond func([]Push) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		got, ch := slices.Clone(w.received), w.notify
		w.mu.Unlock()
		if cond(got) {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		case <-w.done:
			return false
		}
	}
}

// WaitForState waits until a notification of task id with state arrived.
func (w *WebhookReceiver) WaitForState(taskID string, state wire.TaskState, timeout time.Duration) bool {
	return w.WaitFor(timeout, func(ps []Push) bool {
		return slices.ContainsFunc(ps, func(p Push) bool { return p.TaskID == taskID && p.State == state })
	})
}

// AssertReceivedStates asserts that the distinct consecutive states
// received for task id are exactly states, waiting up to 5s for them to
// arrive. A failure says what the webhook received against what was
// expected, with a diff, in the layout of testkit's assertions.
func (w *WebhookReceiver) AssertReceivedStates(t assert.TestingT, taskID string, states ...wire.TaskState) bool {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	w.WaitFor(5*time.Second, func([]Push) bool { return slices.Equal(slices.Compact(w.States(taskID)), states) })
	return check.AssertReceivedStates(t, w.States(taskID), taskID, states...)
}

func (w *WebhookReceiver) serve(rw http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(rw, "read body", http.StatusBadRequest)
		return
	}
	p := decodePush(body)
	p.Header, p.Body, p.At = r.Header.Clone(), body, time.Now()
	p.Token = notificationToken(r.Header)
	if p.CorrelationID == "" {
		p.CorrelationID = r.Header.Get("X-Correlation-Id")
	}
	w.mu.Lock()
	status, delay := w.status, min(w.delay, maxHold)
	if w.failNext > 0 {
		w.failNext--
		status = w.failWith
	}
	w.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
		case <-w.done:
		}
		t.Stop()
	}
	p.Status = status
	if p.State != wire.StateUnspecified && p.TaskID != "" {
		err := w.ledger.Observe(reconcile.Observation{TaskID: p.TaskID, ContextID: p.ContextID,
			CorrelationID: p.CorrelationID, State: p.State, Source: reconcile.SourcePush})
		var d *reconcile.DivergenceError
		if errors.As(err, &d) {
			w.mu.Lock()
			w.diverged = append(w.diverged, err)
			w.mu.Unlock()
		}
	}
	w.mu.Lock()
	w.received = append(w.received, p)
	close(w.notify)
	w.notify = make(chan struct{})
	w.mu.Unlock()
	rw.WriteHeader(status)
}

// notificationToken reads the token from the three spellings in use.
func notificationToken(h http.Header) string {
	for _, k := range []string{"A2A-Notification-Token", "X-A2A-Notification-Token"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	if a := h.Get("Authorization"); a != "" {
		if _, tok, ok := strings.Cut(a, " "); ok {
			return tok
		}
		return a
	}
	return ""
}

type wirePushStatus struct {
	State string `json:"state"`
}

type wirePushObject struct {
	Kind      string          `json:"kind"`
	ID        string          `json:"id"`
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	SessionID string          `json:"sessionId"`
	Status    *wirePushStatus `json:"status"`
	Artifact  json.RawMessage `json:"artifact"`
	Metadata  map[string]any  `json:"metadata"`
}

type wirePushV10 struct {
	Task           *wirePushObject `json:"task"`
	Message        *wirePushObject `json:"message"`
	StatusUpdate   *wirePushObject `json:"statusUpdate"`
	ArtifactUpdate *wirePushObject `json:"artifactUpdate"`
}

// decodePush reads the task id and state of any dialect's push body.
func decodePush(body []byte) Push {
	var p Push
	var v10 wirePushV10
	var o *wirePushObject
	if json.Unmarshal(body, &v10) == nil {
		switch {
		case v10.Task != nil:
			p.Kind, o = "task", v10.Task
		case v10.StatusUpdate != nil:
			p.Kind, o = "status", v10.StatusUpdate
		case v10.ArtifactUpdate != nil:
			p.Kind, o = "artifact", v10.ArtifactUpdate
		case v10.Message != nil:
			p.Kind, o = "message", v10.Message
		}
	}
	if o == nil {
		var v0 wirePushObject
		if json.Unmarshal(body, &v0) != nil {
			return p
		}
		o = &v0
		switch v0.Kind {
		case "task":
			p.Kind = "task"
		case "status-update":
			p.Kind = "status"
		case "artifact-update":
			p.Kind = "artifact"
		case "message":
			p.Kind = "message"
		default:
			// v0.1 has no kind: a Task has an id and a status, an update
			// an id and a status or artifact.
			switch {
			case len(v0.Artifact) > 0:
				p.Kind = "artifact"
			case v0.Status != nil:
				p.Kind = "task"
			}
		}
	}
	p.TaskID, p.ContextID = o.TaskID, o.ContextID
	if p.Kind == "task" || (p.TaskID == "" && o.ID != "") {
		p.TaskID = o.ID
	}
	if p.ContextID == "" {
		p.ContextID = o.SessionID
	}
	if o.Status != nil {
		p.State = canonicalPushState(o.Status.State)
	}
	if c, ok := o.Metadata["correlationId"].(string); ok {
		p.CorrelationID = c
	}
	return p
}

func canonicalPushState(s string) wire.TaskState {
	if rest, ok := strings.CutPrefix(s, "TASK_STATE_"); ok {
		return wire.TaskState(strings.ReplaceAll(strings.ToLower(rest), "_", "-"))
	}
	return wire.TaskState(s)
}

// RequireReceivedStates is AssertReceivedStates that stops the test on
// failure.
func (w *WebhookReceiver) RequireReceivedStates(t require.TestingT, taskID string, states ...wire.TaskState) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	if !w.AssertReceivedStates(t, taskID, states...) {
		t.FailNow()
	}
}
