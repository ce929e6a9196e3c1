package testkit_test

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// WithGRPC serves the v1.0 gRPC binding beside the HTTP ones; a gRPC
// client dials GRPCTarget, the host:port the card declares. (A client of
// the mock would use its own generated code or its SDK's; the mock's
// package is internal.)
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
