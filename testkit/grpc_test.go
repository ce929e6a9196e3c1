package testkit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

func TestWithGRPC(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithDialect(wire.V10), testkit.WithStepDelay(-1), testkit.WithGRPC())
	resp, err := http.Get(m.URL + "/.well-known/agent-card.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding string } `json:"supportedInterfaces"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	target := strings.TrimPrefix(m.URL, "http://")
	require.Contains(t, card.SupportedInterfaces, struct{ URL, ProtocolBinding string }{target, "GRPC"})

	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = a2apb.NewA2AServiceClient(conn).GetTask(ctx, &a2apb.GetTaskRequest{Id: "nope"})
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
}
