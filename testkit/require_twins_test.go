package testkit_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// twin is an Assert function and its Require twin, called on the same
// journal.
type twin struct {
	name    string
	assert  func(t *stopT, j []server.Entry) bool
	require func(t *stopT, j []server.Entry)
}

// TestEveryRequireTwinStopsExactlyWhenItsAssertFails calls every Require
// function (but RequireFellBackToPolling, which reads a webhook receiver:
// TestFellBackToPolling covers it) beside its Assert twin on journals where the assertion passes
// and where it fails: the Require function reports the same failure and
// stops the test (FailNow) exactly when the Assert function returns
// false, and each one is seen to stop at least once.
func TestEveryRequireTwinStopsExactlyWhenItsAssertFails(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Name: "gamma", Dialect: wire.V10}
	ledger := func(j []server.Entry) *reconcile.Ledger {
		l := reconcile.NewLedger(reconcile.LedgerConfig{})
		if len(j) > 0 {
			_ = l.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourceStream})
		}
		return l
	}
	twins := []twin{
		{"Lifecycle",
			func(t *stopT, j []server.Entry) bool {
				return testkit.AssertLifecycle(t, ledger(j), "t1", wire.StateWorking, wire.StateCompleted)
			},
			func(t *stopT, j []server.Entry) {
				testkit.RequireLifecycle(t, ledger(j), "t1", wire.StateWorking, wire.StateCompleted)
			}},
		{"NoUnreconciled",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertNoUnreconciled(t, ledger(j)) },
			func(t *stopT, j []server.Entry) { testkit.RequireNoUnreconciled(t, ledger(j)) }},
		{"Diverged",
			func(t *stopT, j []server.Entry) bool {
				return testkit.AssertDiverged(t, divergedSubject(j), reconcile.KindStuckWorking)
			},
			func(t *stopT, j []server.Entry) {
				testkit.RequireDiverged(t, divergedSubject(j), reconcile.KindStuckWorking)
			}},
		{"NoOrphans",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertNoOrphans(t, j) },
			func(t *stopT, j []server.Entry) { testkit.RequireNoOrphans(t, j) }},
		{"PolledAtMost",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertPolledAtMost(t, j, "t1", 2) },
			func(t *stopT, j []server.Entry) { testkit.RequirePolledAtMost(t, j, "t1", 2) }},
		{"StoppedPollingWithin",
			func(t *stopT, j []server.Entry) bool {
				return testkit.AssertStoppedPollingWithin(t, j, "t1", time.Second)
			},
			func(t *stopT, j []server.Entry) { testkit.RequireStoppedPollingWithin(t, j, "t1", time.Second) }},
		{"Canceled",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertCanceled(t, j, "t1") },
			func(t *stopT, j []server.Entry) { testkit.RequireCanceled(t, j, "t1") }},
		{"NoContinuationTo",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertNoContinuationTo(t, j, "t1") },
			func(t *stopT, j []server.Entry) { testkit.RequireNoContinuationTo(t, j, "t1") }},
		{"UsedDeclaredInterface",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertUsedDeclaredInterface(t, j, card) },
			func(t *stopT, j []server.Entry) { testkit.RequireUsedDeclaredInterface(t, j, card) }},
		{"ContinuationCarriesTaskID",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertContinuationCarriesTaskID(t, j) },
			func(t *stopT, j []server.Entry) { testkit.RequireContinuationCarriesTaskID(t, j) }},
		{"SentVersionHeader",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertSentVersionHeader(t, j) },
			func(t *stopT, j []server.Entry) { testkit.RequireSentVersionHeader(t, j) }},
		{"NoIgnoredFields",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertNoIgnoredFields(t, j) },
			func(t *stopT, j []server.Entry) { testkit.RequireNoIgnoredFields(t, j) }},
		{"NoPageTokenLoop",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertNoPageTokenLoop(t, j) },
			func(t *stopT, j []server.Entry) { testkit.RequireNoPageTokenLoop(t, j) }},
		{"RetryReusedMessageID",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertRetryReusedMessageID(t, j) },
			func(t *stopT, j []server.Entry) { testkit.RequireRetryReusedMessageID(t, j) }},
		{"CardRefetchedOnChange",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertCardRefetchedOnChange(t, j, "gamma", 2) },
			func(t *stopT, j []server.Entry) { testkit.RequireCardRefetchedOnChange(t, j, "gamma", 2) }},
		{"CardSignatureChecked",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertCardSignatureChecked(t, j, "gamma") },
			func(t *stopT, j []server.Entry) { testkit.RequireCardSignatureChecked(t, j, "gamma") }},
		{"NoRequestAfterBadCardSignature",
			func(t *stopT, j []server.Entry) bool {
				return testkit.AssertNoRequestAfterBadCardSignature(t, j, "agent")
			},
			func(t *stopT, j []server.Entry) { testkit.RequireNoRequestAfterBadCardSignature(t, j, "agent") }},
		{"FellBackToPollingFromJournal",
			func(t *stopT, j []server.Entry) bool { return testkit.AssertFellBackToPollingFromJournal(t, j, "t1") },
			func(t *stopT, j []server.Entry) { testkit.RequireFellBackToPollingFromJournal(t, j, "t1") }},
	}
	late := fieldJournal()
	late.call(wire.OpSend, "message/send", "", "t1", "t3", wire.StateCompleted, 0)
	journals := map[string][]server.Entry{"empty": nil, "field incident": fieldJournal().journal(), "twin failures": twinFailures(),
		"continuation to a dead task": late.journal(), "careless client": carelessClient(t)}
	for _, tw := range twins {
		stopped := false
		for name, j := range journals {
			a, r := &stopT{}, &stopT{}
			ok := tw.assert(a, j)
			tw.require(r, j)
			assert.Equal(t, !ok, r.stopped, "%s on the %s journal: Assert returned %v", tw.name, name, ok)
			assert.Equal(t, afterTrace(a.errs), afterTrace(r.errs), "%s on the %s journal: the same failure report", tw.name, name)
			stopped = stopped || r.stopped
		}
		assert.True(t, stopped, "Require%s never stopped on these journals: add one it fails on", tw.name)
	}
}

// divergedSubject is what AssertDiverged is given: the client's error,
// here one that names no divergence (a plain error) for a non-empty
// journal, nothing at all for an empty one.
func divergedSubject(j []server.Entry) any {
	if len(j) == 0 {
		return nil
	}
	return errors.New("plain")
}

// afterTrace is the failure report of errs without its error trace (which
// differs by the frames of the helper that reported it).
func afterTrace(errs []string) string {
	_, msg, _ := strings.Cut(strings.Join(errs, "\n"), "\tError:")
	return msg
}

// carelessClient is the journal of a mock a client used carelessly: no
// A2A-Version header, a request after a card whose signature is alg-none,
// a failed send retried with a new messageId, and an input-required task
// continued with its contextId only.
func carelessClient(t *testing.T) []server.Entry {
	m := testkit.Start(t, testkit.WithSeed(13), testkit.WithStepDelay(-1),
		testkit.WithBehavior("agent", "card-signature:mode=alg-none", "http-error:status=503,op=send,call=1"),
		testkit.WithCardChange("agent", func(c *cards.Card) {
			for i := range c.Skills {
				c.Skills[i].NeedsInput = true
			}
		}))
	get(t, m.CardURL("agent"))
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", failOK: true}
	c.send("m1", "book it", "", "")
	first := c.send("m2", "book it", "", "")
	require.NotNil(t, first, "the second send answers a task")
	c.send("m3", "the blue one", "", first["contextId"].(string))
	return m.Journal()
}

// twinFailures is a journal most assertions fail on: a ListTasks page
// token sent again, a message id not reused on a retry, a continuation
// naming no task, a card fetched once and a signed card's keys never
// fetched, a request after that card, requests without A2A-Version.
func twinFailures() []server.Entry {
	b := newJB()
	b.add(server.Entry{Kind: server.EntryCard, Agent: "gamma", Path: "/.well-known/agent-card.json", Detail: "signature: tampered"})
	b.add(server.Entry{Kind: server.EntryNote, Agent: "gamma", Detail: "card changed"})
	b.call(wire.OpSend, "SendMessage", "", "", "t1", wire.StateInputRequired, 0)
	b.call(wire.OpSend, "SendMessage", "", "", "t3", wire.StateCompleted, 0)
	for range 2 {
		b.req++
		b.add(server.Entry{Kind: server.EntryRequest, Op: wire.OpListTasks, Method: "ListTasks", Request: b.req, PageToken: "p1"})
		b.add(server.Entry{Kind: server.EntryResponse, Op: wire.OpListTasks, Method: "ListTasks", Request: b.req, PageToken: "p1"})
	}
	b.add(server.Entry{Kind: server.EntryRequest, Op: wire.OpSend, Method: "SendMessage", Request: b.req + 1, Ignored: []string{"configuration.blocking"}})
	return b.journal()
}
