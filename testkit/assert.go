package testkit

import (
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/internal/check"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The assertions follow testify's style: they take a t, report a failure
// through assert.Fail and return whether they passed. A failure message
// names the task, says what the client did, what was declared (by the
// card, or by the rule the assertion checks) and what was observed, with a
// diff where there are two sequences to compare.
//
// Client-side assertions read a *reconcile.Ledger. Server-side assertions
// read the mock's journal as []server.Entry, so they work the same on
// Mock.Journal() and on a journal fetched over HTTP with FetchJournal from
// a mock driven by a client in any language.
//
// Their implementations live in the internal package check; each function
// here marks itself a helper, so that a failure points at the test's line.

// tHelper is a test that can mark its helpers (testing.TB can). Each
// assertion calls Helper itself: Helper marks the function that calls it,
// so a shared function calling it would mark only itself, and a failure
// would point into this package instead of at the test's line.
type tHelper interface{ Helper() }

// AssertLifecycle asserts that the ledger saw exactly the expected sequence
// of distinct states for the task under taskKey (a task id, or a
// correlation id behind a gateway).
func AssertLifecycle(t assert.TestingT, ledger *reconcile.Ledger, taskKey string, expected ...wire.TaskState) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertLifecycle(t, ledger, taskKey, expected...)
}

// AssertNoUnreconciled asserts that no task of the ledger is left neither
// terminal nor diverged: nothing the client would orphan if it stopped now.
func AssertNoUnreconciled(t assert.TestingT, ledger *reconcile.Ledger, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertNoUnreconciled(t, ledger, msgAndArgs...)
}

// AssertDiverged asserts that a divergence of the given kind was surfaced.
// subject is a *reconcile.Ledger (some task has the outcome diverged with
// that kind), a *reconcile.Result (its ledger), or an error (it wraps a
// *reconcile.DivergenceError of that kind).
func AssertDiverged(t assert.TestingT, subject any, kind reconcile.Kind, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertDiverged(t, subject, kind, msgAndArgs...)
}

// AssertNoOrphans asserts that every task the client created ended in a
// terminal state, or was canceled by the client (a CancelTask the agent
// acknowledged, even if a misbehaving agent then kept the task running).
// A task left working, submitted or waiting for input is an orphan.
func AssertNoOrphans(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertNoOrphans(t, journal, msgAndArgs...)
}

// AssertPolledAtMost asserts that the client sent at most n GetTask
// requests for the task.
func AssertPolledAtMost(t assert.TestingT, journal []server.Entry, taskID string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertPolledAtMost(t, journal, taskID, n, msgAndArgs...)
}

// AssertStoppedPollingWithin asserts that the client's last GetTask for
// the task came at most d after the task's first journal entry (its
// creation): a client that bounds its waits stops polling by then.
func AssertStoppedPollingWithin(t assert.TestingT, journal []server.Entry, taskID string, d time.Duration, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertStoppedPollingWithin(t, journal, taskID, d, msgAndArgs...)
}

// AssertCanceled asserts that the client canceled the task: it sent a
// CancelTask for it that the agent acknowledged.
func AssertCanceled(t assert.TestingT, journal []server.Entry, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertCanceled(t, journal, taskID, msgAndArgs...)
}

// AssertNoContinuationTo asserts that the client sent no message naming
// the task (a continuation: SendMessage or SendStreamingMessage with its
// taskId) after the task was dead. A task is dead from the first journal
// entry that shows one of: a terminal state of the task; a CancelTask for
// it from the client; an answer to a message naming it that carried a
// different task id (the agent spawned a new task instead of continuing,
// so the id continues nothing); a TaskNotFound answer for it.
func AssertNoContinuationTo(t assert.TestingT, journal []server.Entry, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertNoContinuationTo(t, journal, taskID, msgAndArgs...)
}

// AssertUsedDeclaredInterface asserts that every A2A request in the
// journal used a binding and protocol version (dialect) the card declares,
// and, when the card gives interface URLs, a path under one of them. Pass
// the card as the client read it (e.g. from DiscoverClient): the declared
// card of Mock.Server().Card has no interfaces, and then the mock's
// defaults are assumed (JSON-RPC in the card's dialect, plus HTTP+JSON and,
// when the mock serves it, gRPC for 1.0). Filter the journal with JournalFor when the mock hosts several
// agents. A journal without requests fails: there is nothing to confirm.
func AssertUsedDeclaredInterface(t assert.TestingT, journal []server.Entry, card *cards.Card, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertUsedDeclaredInterface(t, journal, card, msgAndArgs...)
}

// AssertContinuationCarriesTaskID asserts that every message the client
// sent in answer to a task waiting for it (input-required or
// auth-required) named the task by its taskId, with the task's contextId
// (or none). The message answering the task is the client's next send in
// the task's context after the task was interrupted. Clients seen sending
// the contextId only (the Vercel AI SDK provider, the AG-UI adapter and
// ADK: adk-python#4934, adcp-client#729) start a new task instead of
// continuing.
func AssertContinuationCarriesTaskID(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertContinuationCarriesTaskID(t, journal, msgAndArgs...)
}

// AssertSentVersionHeader asserts that every v1.0 request in the journal
// carried an A2A-Version of 1.0 (header or query parameter). A v1.0 request
// without one is a v0.3 request by the spec's rule (§1.6), which a strict
// agent refuses.
func AssertSentVersionHeader(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertSentVersionHeader(t, journal, msgAndArgs...)
}

// AssertNoIgnoredFields asserts that no request carried a field its
// dialect does not define (the journal entry's Ignored): the agent skipped
// it, as servers do, so a setting the client believes it sent was never
// read — v0.3's configuration.blocking or pushNotificationConfig sent to a
// v1.0 agent, or a ListTasks page_size where v1.0's JSON reads pageSize,
// say. A failure names each field and, for a field of an earlier dialect,
// what v1.0 calls it.
func AssertNoIgnoredFields(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertNoIgnoredFields(t, journal, msgAndArgs...)
}

// AssertNoPageTokenLoop asserts that the client never sent a listing
// (ListTasks, or ListTaskPushNotificationConfigs) the same pageToken again
// after the agent had answered that very token with it as nextPageToken: a
// listing that does not advance (see the behavior list-pagination-loop)
// must end, not be followed for ever.
func AssertNoPageTokenLoop(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertNoPageTokenLoop(t, journal, msgAndArgs...)
}

// AssertRetryReusedMessageID asserts that when the client resent a
// message after its first sending failed, it reused the messageId, so the
// agent can recognise the retry instead of acting twice (A2A#928, #1893,
// #1987). A sending failed when the agent answered it with an error, never
// answered it, or a behavior that breaks the answer acted on it (see
// answerBreakers). The resent message is the client's next send with the same text
// (the journal keeps a digest of it) to the same task or context.
func AssertRetryReusedMessageID(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertRetryReusedMessageID(t, journal, msgAndArgs...)
}

// AssertCardRefetchedOnChange asserts that after the agent's card changed
// (at journal sequence number changedAt: take the last entry's Seq when the
// test changes the card) the client fetched the card again before its next
// A2A request to that agent. The mock serves cards with an ETag and
// Cache-Control: no-cache, so a client that honours HTTP caching
// revalidates; one that caches the card for the process's lifetime keeps
// using what the card no longer says.
func AssertCardRefetchedOnChange(t assert.TestingT, journal []server.Entry, agent string, changedAt int64, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertCardRefetchedOnChange(t, journal, agent, changedAt, msgAndArgs...)
}

// AssertCardSignatureChecked asserts that the client fetched the agent's
// signing keys (its JWKS, the jku of the card's signatures) after fetching
// the card and before its first A2A request: the visible part of verifying
// a signed card (a2a-js#605, a2a-go#368). Use it with a mock that signs
// cards (WithSignedCards or the behavior card-signature). A client that
// caches keys across agents or runs may skip the fetch legitimately; this
// assertion is for the first contact.
func AssertCardSignatureChecked(t assert.TestingT, journal []server.Entry, agent string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertCardSignatureChecked(t, journal, agent, msgAndArgs...)
}

// AssertNoRequestAfterBadCardSignature asserts that after the agent served
// a card whose signature a verifier must refuse (the behavior
// card-signature in mode tampered, wrong-canonical-form, unknown-kid,
// alg-none, hs256, expired-key or jku-unreachable), the client sent that
// agent no A2A request, until it fetched a card again that was not bad.
func AssertNoRequestAfterBadCardSignature(t assert.TestingT, journal []server.Entry, agent string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return check.AssertNoRequestAfterBadCardSignature(t, journal, agent, msgAndArgs...)
}
