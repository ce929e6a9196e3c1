package testkit

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/internal/check"
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

// AssertFellBackToPolling asserts, from the server's journal and what the
// webhook w received, that a client whose terminal push never came fell
// back to GetTask: the agent reached a terminal state for task id, the
// webhook never received one, and the journal holds a GetTask for the task
// after that terminal state, answered with a terminal task. A failure says
// what the client did about the task, the rule and what was observed.
func AssertFellBackToPolling(t assert.TestingT, w *WebhookReceiver, journal []server.Entry, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertFellBackToPolling(t, journal, w.States(taskID), taskID, msgAndArgs...)
}

// AssertFellBackToPollingFromJournal is AssertFellBackToPolling for a
// client with a webhook of its own: the states pushed are those the
// journal shows the webhook accepted (PushedStates). The Python and JS
// clients' assert_fell_back_to_polling / assertFellBackToPolling are this
// assertion.
func AssertFellBackToPollingFromJournal(t assert.TestingT, journal []server.Entry, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertFellBackToPolling(t, journal, check.PushedStates(journal, taskID), taskID, msgAndArgs...)
}

// PushedStates returns the states the mock pushed for the task that a
// webhook accepted (answered 2xx), in the order the journal recorded the
// deliveries, from its push entries.
func PushedStates(journal []server.Entry, taskID string) []wire.TaskState {
	return check.PushedStates(journal, taskID)
}
