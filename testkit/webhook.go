package testkit

import (
	"testing"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/receiver"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The webhook receiver lives in package receiver; these names are
// testkit's way in to it.
type (
	// Push is one notification a WebhookReceiver received.
	Push = receiver.Push
	// WebhookReceiver takes the push notifications an agent sends.
	WebhookReceiver = receiver.WebhookReceiver
	// WebhookOption configures a WebhookReceiver.
	WebhookOption = receiver.WebhookOption
)

// WithWebhookLedger makes the receiver record the states it receives in l.
func WithWebhookLedger(l *reconcile.Ledger) WebhookOption { return receiver.WithWebhookLedger(l) }

// Webhook starts a webhook receiver on 127.0.0.1, closed when the test ends.
func Webhook(t testing.TB, opts ...WebhookOption) *WebhookReceiver {
	return receiver.Webhook(t, opts...)
}

// AssertFellBackToPolling checks, from the server's journal, that a client
// whose terminal push never came fell back to GetTask: the agent reached a
// terminal state for task id, the webhook never received it, and the
// journal holds a GetTask for the task after that terminal state, answered
// with a terminal task.
func AssertFellBackToPolling(t testing.TB, w *WebhookReceiver, journal []server.Entry, taskID string) bool {
	t.Helper()
	var terminalSeq int64
	for _, e := range journal {
		if e.Kind == server.EntryEvent && e.TaskID == taskID && e.State.Terminal() {
			terminalSeq = e.Seq
			break
		}
	}
	if terminalSeq == 0 {
		t.Errorf("fell back to polling: the journal shows no terminal state for task %s", taskID)
		return false
	}
	for _, s := range w.States(taskID) {
		if s.Terminal() {
			t.Errorf("fell back to polling: the webhook did receive terminal state %s for task %s, so nothing forced a fallback", s, taskID)
			return false
		}
	}
	polled := map[int64]bool{}
	for _, e := range journal {
		if e.Seq > terminalSeq && e.Kind == server.EntryRequest && e.Op == wire.OpGetTask && e.TaskID == taskID {
			polled[e.Request] = true
		}
	}
	for _, e := range journal {
		if e.Kind == server.EntryResponse && polled[e.Request] && e.State.Terminal() {
			return true
		}
	}
	if len(polled) == 0 {
		t.Errorf("fell back to polling: no GetTask for task %s after its terminal state (journal seq %d): the client waited for a push that never came", taskID, terminalSeq)
	} else {
		t.Errorf("fell back to polling: GetTask for task %s came after its terminal state but no answer carried a terminal state", taskID)
	}
	return false
}
