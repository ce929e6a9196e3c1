package server_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// bareGRPC is the baseline of BenchmarkGRPCSendMessage: a grpc-go server
// that answers every SendMessage with a fixed completed task.
type bareGRPC struct {
	a2apb.UnimplementedA2AServiceServer
	res *a2apb.SendMessageResponse
}

func (b *bareGRPC) SendMessage(context.Context, *a2apb.SendMessageRequest) (*a2apb.SendMessageResponse, error) {
	return b.res, nil
}

// BenchmarkGRPCSendMessage compares a unary gRPC SendMessage (honest, step
// delay 0) to the mock with a bare grpc-go handler answering a fixed task,
// over one client connection with parallel callers:
//
//	go test -run '^$' -bench BenchmarkGRPCSendMessage -benchtime 3s ./server
func BenchmarkGRPCSendMessage(b *testing.B) {
	run := func(b *testing.B, target string) {
		conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(b, err)
		defer conn.Close()
		c := a2apb.NewA2AServiceClient(conn)
		ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0")
		var seq atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				// A new messageId each time: a resent one is a duplicate.
				res, err := c.SendMessage(ctx, grpcSend("bench-"+strconv.FormatInt(seq.Add(1), 10)))
				if err != nil || res.GetTask().GetStatus().GetState() != a2apb.TaskState_TASK_STATE_COMPLETED {
					b.Errorf("send: %v %v", res, err)
					return
				}
			}
		})
	}
	b.Run("mock", func(b *testing.B) {
		h := start(b, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false)}}})
		run(b, strings.TrimPrefix(h.url, "http://"))
	})
	b.Run("bare", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(b, err)
		gs := grpc.NewServer()
		a2apb.RegisterA2AServiceServer(gs, &bareGRPC{res: &a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Task{Task: &a2apb.Task{
			Id: "t-1", ContextId: "c-1", Status: &a2apb.TaskStatus{State: a2apb.TaskState_TASK_STATE_COMPLETED},
			Artifacts: []*a2apb.Artifact{{ArtifactId: "a-1", Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "done"}}}}},
		}}}})
		go func() { _ = gs.Serve(ln) }()
		defer gs.Stop()
		run(b, ln.Addr().String())
	})
}
