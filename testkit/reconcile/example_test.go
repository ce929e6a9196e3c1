package reconcile_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// A ledger fed from several channels keeps the distinct states and gives a
// task that breaks its lifecycle the outcome "diverged", not "failed".
func ExampleLedger() {
	clock := timeline.NewFakeClock(time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC))
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{Clock: clock})

	seen := []reconcile.Observation{
		{TaskID: "t1", State: wire.StateSubmitted, Source: reconcile.SourceSendResponse},
		{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourceStream},
		{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourcePoll},
		{TaskID: "t1", State: wire.StateCompleted, Source: reconcile.SourcePush},
		{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourcePoll},
	}
	for _, o := range seen {
		clock.Advance(time.Second)
		if err := ledger.Observe(o); err != nil {
			fmt.Println("error:", err)
		}
	}
	task, _ := ledger.Task("t1")
	fmt.Println(task.States, len(task.Raw), "observations")
	fmt.Println("outcome:", task.Outcome)
	fmt.Println("unreconciled:", len(ledger.Unreconciled()))
	// Output:
	// error: divergence transition-after-terminal on task "t1": card declared terminal state "completed" is final but observed "working" from poll after "completed" (a terminal task is immutable)
	// [submitted working completed working] 5 observations
	// outcome: diverged
	// unreconciled: 0
}

// The field incident: the card promised a transition history, working was
// observed, and the continuation came back with a fresh task id.
func ExampleDivergenceError() {
	declared := reconcile.Declared{Dialect: wire.V03, StateTransitionHistory: true,
		Skills: []reconcile.DeclaredSkill{{ID: "plan", NeedsInput: true}}}
	ledger := reconcile.NewLedger(reconcile.LedgerConfig{Declared: declared})
	_ = ledger.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateSubmitted, Source: reconcile.SourceSendResponse})
	_ = ledger.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourceStream})

	exp := reconcile.Expect(declared, "plan")
	task, _ := ledger.Task("t1")
	_, err := exp.ContinuationCheck(task, "t2")

	var div *reconcile.DivergenceError
	if errors.As(err, &div) {
		fmt.Println(div.Kind)
		fmt.Println(div.TaskID, "|", div.Declared, "|", div.Observed)
		fmt.Println(err)
	}
	// Output:
	// new-task-id-on-continuation
	// t1 | stateTransitionHistory=true (card) (continuous task id) | new task id "t2" on continuation
	// divergence new-task-id-on-continuation on task "t1": card declared stateTransitionHistory=true (card) (continuous task id) but observed new task id "t2" on continuation (server spawned a fresh task instead of continuing the original)
}

// Phase 1 narrows the lifecycle from the card; phase 2 downgrades it when
// the agent finishes without ever asking for input.
func ExampleExpectation_Check() {
	declared := reconcile.Declared{Dialect: wire.V03, StateTransitionHistory: true,
		Skills: []reconcile.DeclaredSkill{{ID: "plan", NeedsInput: true}}}
	exp := reconcile.Expect(declared, "plan")
	fmt.Println("expected:", exp.Expected())

	ledger := reconcile.NewLedger(reconcile.LedgerConfig{Declared: declared})
	_ = ledger.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateSubmitted, Source: reconcile.SourceSendResponse})
	task, _ := ledger.Task("t1")
	v, _ := exp.Check(task)
	fmt.Println("after the ack:", v)

	_ = ledger.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourcePoll})
	_ = ledger.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateCompleted, Source: reconcile.SourcePoll})
	task, _ = ledger.Task("t1")
	v, _ = exp.Check(task)
	fmt.Println("after completion:", v, "- still expecting input:", exp.ExpectInputRequired)
	// Output:
	// expected: [submitted working input-required working completed]
	// after the ack: hint-only
	// after completion: stop-waiting-for-input - still expecting input: false
}
