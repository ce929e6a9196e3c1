package testkit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// quietT is a stand-in for *testing.T in examples: it remembers that an
// assertion failed. In a test, pass t.
type quietT struct{ failed bool }

func (q *quietT) Errorf(string, ...any) { q.failed = true }

func text(s string) *wire.Message {
	return &wire.Message{MessageID: s, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(s)}}
}

// A Client speaks JSON-RPC to one agent and records what it sees in a
// ledger; JSON-RPC errors are *RPCError.
func ExampleClient() {
	mock, err := testkit.NewServer(testkit.WithSeed(1), testkit.WithAgents("worker"), testkit.WithStepDelay(-1))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mock.Close()
	ctx := context.Background()

	ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
	client := testkit.NewClient(mock.AgentURL("worker")+"/", testkit.WithLedger(ledger))
	defer client.CloseIdleConnections()

	seq, err := client.Stream(ctx, text("hello"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var id string
	for ev, err := range seq {
		if err != nil {
			fmt.Println(err)
			return
		}
		if ev.Task != nil {
			id = ev.Task.ID
		}
	}
	seen, _ := ledger.Task(id)
	fmt.Println("streamed:", seen.States, "outcome:", seen.Outcome)

	_, err = client.CancelTask(ctx, id)
	var rpcErr *testkit.RPCError
	if errors.As(err, &rpcErr) {
		fmt.Println("cancel a completed task:", rpcErr.Code)
	}
	// Output:
	// streamed: [submitted working completed] outcome: completed
	// cancel a completed task: -32002
}

// DiscoverClient starts from the card: it picks the JSON-RPC interface and
// speaks its protocol version.
func ExampleDiscoverClient() {
	mock, err := testkit.NewServer(testkit.WithAgents("worker"), testkit.WithDialect(wire.V03))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mock.Close()
	client, card, err := testkit.DiscoverClient(context.Background(), mock.CardURL("worker"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.CloseIdleConnections()
	declared := reconcile.Declare(card, reconcile.Policy{})
	fmt.Println("speaks:", client.Dialect(), "streaming:", declared.Streaming)
	// Output:
	// speaks: 0.3 streaming: true
}

// AssertNoOrphans reads the mock's journal: a task left working fails it
// until the client cancels the task.
func ExampleAssertNoOrphans() {
	mock, err := testkit.NewServer(testkit.WithAgents("worker"), testkit.WithBehavior("worker", "never-terminal"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mock.Close()
	ctx := context.Background()
	client := testkit.NewClient(mock.AgentURL("worker") + "/")
	defer client.CloseIdleConnections()
	task, err := client.Send(ctx, text("work"), reconcile.SendOptions{ReturnImmediately: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := &quietT{} // in a test: t
	fmt.Println("before cancel:", testkit.AssertNoOrphans(t, mock.Journal()))
	if _, err := client.CancelTask(ctx, task.ID); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("after cancel:", testkit.AssertNoOrphans(t, mock.Journal()))
	fmt.Println("canceled by the client:", testkit.AssertCanceled(t, mock.Journal(), task.ID))
	// Output:
	// before cancel: false
	// after cancel: true
	// canceled by the client: true
}

// The reconciling driver over a Client surfaces a typed divergence, and the
// assertions check it on the error, the ledger and the journal.
func ExampleAssertDiverged() {
	mock, err := testkit.NewServer(testkit.WithAgents("worker"), testkit.WithDialect(wire.V03),
		testkit.WithBehavior("worker", "never-terminal"),
		testkit.WithCardChange("worker", func(c *cards.Card) {
			for i := range c.Skills {
				c.Skills[i].InputModes = []string{cards.ModeText}
			}
		}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mock.Close()
	ctx := context.Background()
	client, card, err := testkit.DiscoverClient(ctx, mock.CardURL("worker"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.CloseIdleConnections()
	d := &reconcile.Driver{Agent: client, Card: reconcile.Declare(card, reconcile.Policy{}),
		WorkingDeadline: 100 * time.Millisecond, PollInterval: 10 * time.Millisecond}
	res, err := d.Run(ctx, card.Skills[0].ID, text("work"), nil)

	t := &quietT{} // in a test: t
	fmt.Println("stuck-working:", testkit.AssertDiverged(t, err, reconcile.KindStuckWorking))
	fmt.Println("ledger outcome:", res.Outcome)
	fmt.Println("no orphans:", testkit.AssertNoOrphans(t, mock.Journal()))
	fmt.Println("used the declared interface:", testkit.AssertUsedDeclaredInterface(t, mock.Journal(), card))
	// Output:
	// stuck-working: true
	// ledger outcome: diverged
	// no orphans: true
	// used the declared interface: true
}
