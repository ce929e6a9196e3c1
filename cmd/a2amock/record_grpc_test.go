package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/server"
)

// sendGRPC sends one v1.0 SendMessage over gRPC (h2c) to the server at
// base (an http:// URL).
func sendGRPC(t *testing.T, base, messageID string) *a2apb.SendMessageResponse {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := a2apb.NewA2AServiceClient(conn).SendMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
		&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: messageID, Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	require.NoError(t, err)
	return resp
}

func TestRecordThenReplayCommandsOverGRPC(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.Config{Seed: 3, StepDelay: -1, GRPC: true})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = srv.Close() })
	out := filepath.Join(t.TempDir(), "agent.json")

	var stdout, stderr bytes.Buffer
	proxyURL, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return recordCmd(ctx, []string{"--upstream", srv.URL(), "--out", out}, &stdout, &stderr, ready)
	})
	recorded := sendGRPC(t, proxyURL, "m1")
	require.Equal(t, 0, stop(), stderr.String())
	assert.Contains(t, stdout.String(), "wrote 1 exchange(s)")
	rec := loadRecording(t, out)
	require.Len(t, rec.Exchanges, 1)
	assert.Equal(t, record.KindGRPC, rec.Exchanges[0].Kind)

	replayURL, stopReplay := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return replayCmd(ctx, []string{"--addr", "127.0.0.1:0", "--speed", "0", out}, io.Discard, &stderr, ready)
	})
	replayed := sendGRPC(t, replayURL, "m1")
	assert.True(t, proto.Equal(recorded, replayed), "the replay answers over gRPC what the agent answered:\n%v\n%v", recorded, replayed)
	require.Equal(t, 0, stopReplay(), stderr.String())
}
