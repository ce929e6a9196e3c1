package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// TestMain fails the package if a client or the mock leaves a goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recT records assertion failures: the naive coordinator is supposed to
// fail the journal assertions, and these tests check that it does.
type recT struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recT) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

// mustFail checks that check fails and that its message contains wants.
func mustFail(t *testing.T, check func(*recT) bool, wants ...string) {
	t.Helper()
	rt := &recT{}
	assert.False(t, check(rt), "the assertion should fail for this client")
	for _, w := range wants {
		assert.Contains(t, rt.text(), w)
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

const maxPolls = 40

// closeIdle closes the clients' idle connections before the mock closes
// (cleanups run last first), so its graceful shutdown has nothing to wait for.
func closeIdle(t *testing.T, workers []Worker) {
	for _, w := range workers {
		t.Cleanup(w.Client.CloseIdleConnections)
	}
}

// naiveScenario runs the naive coordinator against the three workers and
// returns gamma's original task id, the ledger and the journal.
func naiveScenario(t *testing.T, spec string) (string, *reconcile.Ledger, *testkit.Mock, []Worker) {
	t.Helper()
	mock := testkit.Start(t, Workers(spec)...)
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
	ctx := ctxFor(t)
	workers, err := Discover(ctx, mock, testkit.WithLedger(ledger))
	require.NoError(t, err)
	closeIdle(t, workers)
	for _, w := range workers[:2] {
		_, err := NewNaive(w, maxPolls).Run(ctx, Request(false), Answer())
		require.NoError(t, err, "the naive coordinator copes with an honest worker (%s)", w.Name)
		testkit.AssertNoOrphans(t, testkit.JournalFor(mock.Journal(), w.Name))
	}
	id, err := NewNaive(workers[2], maxPolls).Run(ctx, Request(false), Answer())
	require.ErrorIs(t, err, ErrPollLimit, "the naive coordinator would poll for ever")
	require.NotEmpty(t, id)
	return id, ledger, mock, workers
}

func TestFieldIncidentNaiveCoordinatorOrphansTheTask(t *testing.T) {
	t.Parallel()
	id, ledger, mock, workers := naiveScenario(t, FieldIncident)

	// The client's ledger: the original task is still working, unreconciled.
	testkit.AssertLifecycle(t, ledger, id, wire.StateSubmitted, wire.StateWorking)
	mustFail(t, func(rt *recT) bool { return testkit.AssertNoUnreconciled(rt, ledger) },
		fmt.Sprintf("task %q", id), "states submitted → working (outcome pending")

	// The agent's journal: an orphan, polled without bound, a continuation
	// answered with a new task that the client ignored.
	journal := mock.Journal()
	mustFail(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, journal) },
		fmt.Sprintf("task %q (agent gamma): orphaned", id), "last state working", "never canceled",
		"message/send (continuation) ×1", fmt.Sprintf("tasks/get ×%d", maxPolls))
	mustFail(t, func(rt *recT) bool { return testkit.AssertPolledAtMost(rt, journal, id, 10) },
		fmt.Sprintf("polled %d times, more than 10", maxPolls))
	mustFail(t, func(rt *recT) bool { return testkit.AssertCanceled(rt, journal, id) },
		fmt.Sprintf("task %q", id), "no CancelTask for it")
	// Routing by the card was right all along.
	for _, w := range workers {
		testkit.AssertUsedDeclaredInterface(t, testkit.JournalFor(journal, w.Name), w.Card)
	}
	// The journal fetched over HTTP says the same, for clients in any language.
	mustFail(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, testkit.FetchJournal(t, mock.URL)) }, id)
}

// driverScenario runs the reconciling driver against the three workers and
// returns gamma's result and error.
func driverScenario(t *testing.T, spec string, tenant bool) (*reconcile.Result, *testkit.Mock, error) {
	t.Helper()
	mock := testkit.Start(t, Workers(spec)...)
	ctx := ctxFor(t)
	workers, err := Discover(ctx, mock)
	require.NoError(t, err)
	closeIdle(t, workers)
	for _, w := range workers[:2] {
		res, err := Reconcile(ctx, w, Request(tenant))
		require.NoError(t, err, w.Name)
		assert.Equal(t, reconcile.OutcomeCompleted, res.Outcome, w.Name)
		testkit.AssertLifecycle(t, res.Ledger, res.Key, wire.StateSubmitted, wire.StateWorking,
			wire.StateInputRequired, wire.StateWorking, wire.StateCompleted)
	}
	res, err := Reconcile(ctx, workers[2], Request(tenant))
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, reconcile.OutcomeDiverged, res.Outcome, "diverged, distinct from failed")
	testkit.AssertNoUnreconciled(t, res.Ledger)
	journal := mock.Journal()
	testkit.AssertNoOrphans(t, journal)
	testkit.AssertCanceled(t, journal, res.TaskID)
	testkit.AssertNoContinuationTo(t, journal, res.TaskID)
	testkit.AssertStoppedPollingWithin(t, journal, res.TaskID, 2*time.Second)
	for _, w := range workers {
		testkit.AssertUsedDeclaredInterface(t, testkit.JournalFor(journal, w.Name), w.Card)
	}
	return res, mock, err
}

func TestFieldIncidentDriverSurfacesNewTaskID(t *testing.T) {
	t.Parallel()
	// The request carries the tenant, so gamma parks the task in
	// input-required; the answer does not, so gamma spawns a new task.
	res, mock, err := driverScenario(t, FieldIncident, true)
	testkit.AssertDiverged(t, err, reconcile.KindNewTaskIDOnContinuation)
	testkit.AssertDiverged(t, res, reconcile.KindNewTaskIDOnContinuation)
	require.Len(t, res.Canceled, 2, "the spawned task and the original")
	spawned := res.Canceled[0]
	assert.NotEqual(t, res.TaskID, spawned)
	journal := mock.Journal()
	testkit.AssertCanceled(t, journal, spawned)
	testkit.AssertPolledAtMost(t, journal, res.TaskID, 2)
}

func TestFieldIncidentDriverWithoutTenantBoundsTheWait(t *testing.T) {
	t.Parallel()
	// Without the tenant gamma never asks for input: the driver does not
	// guess a continuation, it bounds the wait and cancels.
	_, _, err := driverScenario(t, FieldIncident, false)
	testkit.AssertDiverged(t, err, reconcile.KindStuckWorking)
}

func TestSkipWorking(t *testing.T) {
	t.Parallel()
	t.Run("naive", func(t *testing.T) {
		t.Parallel()
		id, ledger, mock, _ := naiveScenario(t, SkipWorking)
		// It waits for the working the card's history promised, for ever.
		testkit.AssertLifecycle(t, ledger, id, wire.StateSubmitted, wire.StateInputRequired)
		mustFail(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, mock.Journal()) },
			fmt.Sprintf("task %q", id), "last state input-required (submitted → input-required)")
	})
	t.Run("driver", func(t *testing.T) {
		t.Parallel()
		res, _, err := driverScenario(t, SkipWorking, false)
		testkit.AssertDiverged(t, err, reconcile.KindInputRequiredWithoutWorking)
		assert.Equal(t, []string{res.TaskID}, res.Canceled)
	})
}

func TestNeverTerminal(t *testing.T) {
	t.Parallel()
	t.Run("naive", func(t *testing.T) {
		t.Parallel()
		id, ledger, mock, _ := naiveScenario(t, NeverTerminal)
		testkit.AssertLifecycle(t, ledger, id, wire.StateSubmitted, wire.StateWorking)
		journal := mock.Journal()
		mustFail(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, journal) }, fmt.Sprintf("task %q", id), "last state working")
		mustFail(t, func(rt *recT) bool { return testkit.AssertPolledAtMost(rt, journal, id, maxPolls-1) }, "more than")
	})
	t.Run("driver", func(t *testing.T) {
		t.Parallel()
		res, _, err := driverScenario(t, NeverTerminal, false)
		testkit.AssertDiverged(t, err, reconcile.KindStuckWorking)
		assert.Equal(t, []string{res.TaskID}, res.Canceled)
	})
}
