package testkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// A reconciling driver whose caller ends the run (its deadline, a shutdown)
// while the agent still works on the task cancels the task on the way out:
// the journal shows no orphan. Before, it returned at once and left the task
// working at the agent for ever, and its callers had to cancel it
// themselves.
func TestDriverCancelsItsTaskWhenTheCallerEndsTheRun(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithStepDelay(0), testkit.WithBehavior("", "never-terminal"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, card, err := testkit.DiscoverClient(ctx, mock.CardURL(""), testkit.WithHTTPClient(mock.Client()))
	require.NoError(t, err)
	defer client.CloseIdleConnections()
	d := &reconcile.Driver{Agent: client, Card: reconcile.Declare(card, reconcile.Policy{}), Poll: true,
		PollInterval: 5 * time.Millisecond, WorkingDeadline: time.Hour}

	runCtx, endRun := context.WithCancel(ctx)
	type ran struct {
		res *reconcile.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := d.Run(runCtx, "", &wire.Message{Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("go")}}, nil)
		done <- ran{res, err}
	}()
	var taskID string
	require.Eventually(t, func() bool {
		for _, e := range mock.Journal() {
			if e.Op == wire.OpGetTask && e.TaskID != "" {
				taskID = e.TaskID
				return true
			}
		}
		return false
	}, 5*time.Second, time.Millisecond, "the driver polls the working task")
	endRun()
	got := <-done
	assert.ErrorIs(t, got.err, context.Canceled)
	require.NotNil(t, got.res)
	assert.Equal(t, []string{taskID}, got.res.Canceled)
	testkit.AssertCanceled(t, mock.Journal(), taskID)
	testkit.AssertNoOrphans(t, mock.Journal())
}
