package testkit_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// stoppingT is a recT whose FailNow is recorded, for the Require family.
type stoppingT struct {
	recT
	stopped bool
}

func (s *stoppingT) FailNow() { s.stopped = true }

// The Require family and FetchJournal report a failure at the test's line,
// as the assertions do (fails checks theirs): every function between the
// test and assert.Fail marks itself a helper. Helper marks only the
// function that calls it, so one shared function calling it marked nothing
// of use, and every failure pointed into testkit's own code.
func TestRequireFailuresPointAtTheTest(t *testing.T) {
	t.Parallel()
	// A task created, polled twice and left working, by a client that sent
	// no A2A-Version header.
	journal := []server.Entry{
		{Seq: 1, Kind: server.EntryRequest, Op: wire.OpSend, Method: "SendMessage", Dialect: wire.V10, Request: 1, MessageID: "m1"},
		{Seq: 2, Kind: server.EntryDecision, Op: wire.OpSend, Request: 1, TaskID: "t-1", Detail: "new"},
		{Seq: 3, Kind: server.EntryEvent, TaskID: "t-1", State: wire.StateWorking},
		{Seq: 4, Kind: server.EntryRequest, Op: wire.OpGetTask, Method: "GetTask", Dialect: wire.V10, Request: 2, TaskID: "t-1"},
		{Seq: 5, Kind: server.EntryRequest, Op: wire.OpGetTask, Method: "GetTask", Dialect: wire.V10, Request: 3, TaskID: "t-1"},
	}
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
	for name, call := range map[string]func(t *stoppingT){
		"RequireLifecycle":         func(t *stoppingT) { testkit.RequireLifecycle(t, ledger, "k", wire.StateCompleted) },
		"RequireDiverged":          func(t *stoppingT) { testkit.RequireDiverged(t, errors.New("plain"), reconcile.KindStuckWorking) },
		"RequireNoOrphans":         func(t *stoppingT) { testkit.RequireNoOrphans(t, journal) },
		"RequirePolledAtMost":      func(t *stoppingT) { testkit.RequirePolledAtMost(t, journal, "t-1", 1) },
		"RequireCanceled":          func(t *stoppingT) { testkit.RequireCanceled(t, journal, "t-1") },
		"RequireSentVersionHeader": func(t *stoppingT) { testkit.RequireSentVersionHeader(t, journal) },
		"FetchJournal":             func(t *stoppingT) { testkit.FetchJournal(t, "http://127.0.0.1:0") },
	} {
		st := &stoppingT{}
		call(st)
		if assert.NotEmpty(t, st.at, "%s did not fail", name) {
			assert.True(t, inTestkitTest(st.at[0]), "%s reported its failure at %s, not at the test's line", name, st.at[0])
		}
		assert.Equal(t, name != "FetchJournal", st.stopped, "%s stopped the test", name)
	}
}
