package testkit_test

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// WithGRPC serves the v1.0 gRPC binding beside the HTTP ones; a gRPC
// client dials GRPCTarget, the host:port the card declares. (A client
// under test would use its own generated code or its SDK's; the mock's
// package is internal. testkit's own client speaks gRPC too: see
// ExampleWithBinding.)
func ExampleWithGRPC() {
	t := &exampleT{} // in a test: func TestMyClient(t *testing.T)
	defer t.finish()

	mock := testkit.Start(t, testkit.WithDialect(wire.V10), testkit.WithStepDelay(-1),
		testkit.WithGRPC(), testkit.WithBehavior("agent", "http-error:status=503,op=send,call=1"))
	conn, err := grpc.NewClient(mock.GRPCTarget(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	c := a2apb.NewA2AServiceClient(conn)
	send := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-1", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hello"}}}}}

	_, err = c.SendMessage(context.Background(), send)
	fmt.Println("first send:", status.Code(err))
	res, err := c.SendMessage(context.Background(), send)
	fmt.Println("second send:", res.GetTask().GetStatus().GetState(), err)
	// Output:
	// first send: Unavailable
	// second send: TASK_STATE_COMPLETED <nil>
}

// WithBinding(wire.BindingGRPC) makes the testkit client speak the v1.0
// gRPC binding: DiscoverClient picks the card's GRPC interface (its tenant
// included), and the ledger and the errors are the same as over JSON-RPC.
func ExampleWithBinding() {
	mock, err := testkit.NewServer(testkit.WithSeed(1), testkit.WithAgents("worker"), testkit.WithStepDelay(-1), testkit.WithGRPC())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mock.Close()
	ctx := context.Background()

	ledger := reconcile.NewLedger(reconcile.LedgerConfig{})
	client, _, err := testkit.DiscoverClient(ctx, mock.CardURL("worker"), testkit.WithBinding(wire.BindingGRPC), testkit.WithLedger(ledger))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.CloseIdleConnections() // closes the gRPC connection too
	fmt.Println("binding:", client.Binding(), "target is the mock's:", client.URL() == mock.GRPCTarget())

	seq, err := client.Stream(ctx, text("hello"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for range seq {
	}
	seen := ledger.Tasks()[0]
	fmt.Println("streamed:", seen.States, "outcome:", seen.Outcome)

	_, err = client.GetTask(ctx, "no-such-task")
	var rpcErr *testkit.RPCError
	if errors.As(err, &rpcErr) {
		fmt.Println("unknown task:", rpcErr.Code, rpcErr.Reason, rpcErr.GRPCCode)
	}
	// Output:
	// binding: GRPC target is the mock's: true
	// streamed: [submitted working completed] outcome: completed
	// unknown task: -32001 TASK_NOT_FOUND NotFound
}
