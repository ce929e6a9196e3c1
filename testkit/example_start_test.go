package testkit_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// exampleT stands in for the *testing.T a real test passes to Start (an
// example function has none): it runs the cleanups Start registers.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                   {}
func (t *exampleT) Cleanup(f func())          { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(f string, a ...any) { fmt.Printf(f+"\n", a...) }
func (t *exampleT) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (t *exampleT) finish() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// Start in a test: two agents, one of which fails its first send with a
// 503; the mock is closed when the test ends.
func ExampleStart() {
	t := &exampleT{} // in a test: func TestMyClient(t *testing.T)
	defer t.finish()

	mock := testkit.Start(t, testkit.WithSeed(7), testkit.WithAgents("planner", "coder"),
		testkit.WithStepDelay(-1), testkit.WithBehavior("coder", "http-error:status=503,op=send,call=1"))

	ctx := context.Background()
	msg := func(text string) *wire.Message {
		return &wire.Message{MessageID: text, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(text)}}
	}
	planner := testkit.NewClient(mock.AgentURL("planner") + "/")
	defer planner.CloseIdleConnections()
	task, err := planner.Send(ctx, msg("plan"), reconcile.SendOptions{})
	fmt.Println("planner:", task.Status.State, err)

	coder := testkit.NewClient(mock.AgentURL("coder") + "/")
	defer coder.CloseIdleConnections()
	_, err = coder.Send(ctx, msg("code"), reconcile.SendOptions{})
	fmt.Println("coder, first send fails:", err != nil)
	task, err = coder.Send(ctx, msg("code again"), reconcile.SendOptions{})
	fmt.Println("coder, second send:", task.Status.State, err)
	// Output:
	// planner: completed <nil>
	// coder, first send fails: true
	// coder, second send: completed <nil>
}

// StartReplay in a test: the recording a2amock record wrote of a field
// session is served again, the agent's answers as recorded (its task id),
// and the journal is read as a mock's.
func ExampleStartReplay() {
	t := &exampleT{} // in a test: func TestMyClient(t *testing.T)
	defer t.finish()

	mock := testkit.StartReplay(t, "testdata/recorded-send.json", replay.Options{})

	c := testkit.NewClient(mock.URL + "/")
	defer c.CloseIdleConnections()
	task, err := c.Send(context.Background(), &wire.Message{MessageID: "m-1", Role: wire.RoleUser,
		Parts: []wire.Part{wire.TextPart("summarise the incident")}}, reconcile.SendOptions{})
	fmt.Println(task.ID, task.Status.State, err)
	for _, e := range mock.Journal() {
		if e.Kind == server.EntryRequest {
			fmt.Println("journaled:", e.Method, e.Binding)
		}
	}
	// Output:
	// cae94e19-ec6f-4896-a32e-d0565b22fc41 completed <nil>
	// journaled: SendMessage JSONRPC
}
