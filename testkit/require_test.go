package testkit_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// stopT records what an assertion does to its test.
type stopT struct {
	errs    []string
	stopped bool
}

func (r *stopT) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *stopT) FailNow() { r.stopped = true }
func (r *stopT) Helper()  {}

// Assertions take testify's trailing msgAndArgs: the message is part of
// the failure report.
func TestAssertionsTakeMsgAndArgs(t *testing.T) {
	t.Parallel()
	journal := []server.Entry{}
	r := &stopT{}
	assert.False(t, testkit.AssertCanceled(r, journal, "t-1", "after %d sends", 3))
	assert.Contains(t, strings.Join(r.errs, "\n"), "after 3 sends")

	r = &stopT{}
	assert.False(t, testkit.AssertDiverged(r, errors.New("plain"), reconcile.KindStuckWorking, "driver run %s", "A"))
	assert.Contains(t, strings.Join(r.errs, "\n"), "driver run A")

	r = &stopT{}
	assert.False(t, testkit.AssertDiverged(r, &reconcile.Result{Ledger: reconcile.NewLedger(reconcile.LedgerConfig{})}, reconcile.KindStuckWorking, "through the ledger"))
	assert.Contains(t, strings.Join(r.errs, "\n"), "through the ledger", "the message survives the delegation to the ledger case")

	r = &stopT{}
	assert.True(t, testkit.AssertNoOrphans(r, journal, "never shown"))
	assert.Empty(t, r.errs)
}

// The Require family stops the test (FailNow) exactly when its Assert twin
// fails.
func TestRequireStopsOnFailure(t *testing.T) {
	t.Parallel()
	r := &stopT{}
	testkit.RequireCanceled(r, nil, "t-1", "the %s task", "first")
	assert.True(t, r.stopped)
	assert.Contains(t, strings.Join(r.errs, "\n"), "the first task")

	r = &stopT{}
	testkit.RequireNoOrphans(r, nil)
	testkit.RequirePolledAtMost(r, nil, "t-1", 0)
	assert.False(t, r.stopped, "passing assertions do not stop the test")
	assert.Empty(t, r.errs)

	r = &stopT{}
	testkit.RequireLifecycle(r, reconcile.NewLedger(reconcile.LedgerConfig{}), "k", wire.StateCompleted)
	assert.True(t, r.stopped)

	r = &stopT{}
	testkit.RequireDiverged(r, nil, reconcile.KindStuckWorking)
	assert.True(t, r.stopped)
}
