package testkit

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The Require functions are the Assert functions that stop the test: each
// calls its Assert twin and, when that fails, t.FailNow, as testify's
// require package does for assert.

// requireT is what a Require function needs: testify's require.TestingT.
type requireT = require.TestingT

// RequireLifecycle is AssertLifecycle that stops the test on failure.
func RequireLifecycle(t requireT, ledger *reconcile.Ledger, taskKey string, expected ...wire.TaskState) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertLifecycle(t, ledger, taskKey, expected...) {
		t.FailNow()
	}
}

// RequireNoUnreconciled is AssertNoUnreconciled that stops the test on failure.
func RequireNoUnreconciled(t requireT, ledger *reconcile.Ledger, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoUnreconciled(t, ledger, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireDiverged is AssertDiverged that stops the test on failure.
func RequireDiverged(t requireT, subject any, kind reconcile.Kind, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertDiverged(t, subject, kind, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNoOrphans is AssertNoOrphans that stops the test on failure.
func RequireNoOrphans(t requireT, journal []server.Entry, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoOrphans(t, journal, msgAndArgs...) {
		t.FailNow()
	}
}

// RequirePolledAtMost is AssertPolledAtMost that stops the test on failure.
func RequirePolledAtMost(t requireT, journal []server.Entry, taskID string, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertPolledAtMost(t, journal, taskID, n, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireStoppedPollingWithin is AssertStoppedPollingWithin that stops the test on failure.
func RequireStoppedPollingWithin(t requireT, journal []server.Entry, taskID string, d time.Duration, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertStoppedPollingWithin(t, journal, taskID, d, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireCanceled is AssertCanceled that stops the test on failure.
func RequireCanceled(t requireT, journal []server.Entry, taskID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertCanceled(t, journal, taskID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNoContinuationTo is AssertNoContinuationTo that stops the test on failure.
func RequireNoContinuationTo(t requireT, journal []server.Entry, taskID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoContinuationTo(t, journal, taskID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireUsedDeclaredInterface is AssertUsedDeclaredInterface that stops the test on failure.
func RequireUsedDeclaredInterface(t requireT, journal []server.Entry, card *cards.Card, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertUsedDeclaredInterface(t, journal, card, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireCardSignatureChecked is AssertCardSignatureChecked that stops the test on failure.
func RequireCardSignatureChecked(t requireT, journal []server.Entry, agent string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertCardSignatureChecked(t, journal, agent, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNoRequestAfterBadCardSignature is AssertNoRequestAfterBadCardSignature that stops the test on failure.
func RequireNoRequestAfterBadCardSignature(t requireT, journal []server.Entry, agent string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoRequestAfterBadCardSignature(t, journal, agent, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireContinuationCarriesTaskID is AssertContinuationCarriesTaskID that stops the test on failure.
func RequireContinuationCarriesTaskID(t requireT, journal []server.Entry, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertContinuationCarriesTaskID(t, journal, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireSentVersionHeader is AssertSentVersionHeader that stops the test on failure.
func RequireSentVersionHeader(t requireT, journal []server.Entry, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertSentVersionHeader(t, journal, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNoIgnoredFields is AssertNoIgnoredFields that stops the test on
// failure.
func RequireNoIgnoredFields(t requireT, journal []server.Entry, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoIgnoredFields(t, journal, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNoPageTokenLoop is AssertNoPageTokenLoop that stops the test on failure.
func RequireNoPageTokenLoop(t requireT, journal []server.Entry, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoPageTokenLoop(t, journal, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireRetryReusedMessageID is AssertRetryReusedMessageID that stops the test on failure.
func RequireRetryReusedMessageID(t requireT, journal []server.Entry, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertRetryReusedMessageID(t, journal, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireCardRefetchedOnChange is AssertCardRefetchedOnChange that stops the test on failure.
func RequireCardRefetchedOnChange(t requireT, journal []server.Entry, agent string, changedAt int64, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertCardRefetchedOnChange(t, journal, agent, changedAt, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireFellBackToPolling is AssertFellBackToPolling that stops the test on
// failure.
func RequireFellBackToPolling(t requireT, w *WebhookReceiver, journal []server.Entry, taskID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertFellBackToPolling(t, w, journal, taskID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireFellBackToPollingFromJournal is AssertFellBackToPollingFromJournal
// that stops the test on failure.
func RequireFellBackToPollingFromJournal(t requireT, journal []server.Entry, taskID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertFellBackToPollingFromJournal(t, journal, taskID, msgAndArgs...) {
		t.FailNow()
	}
}
