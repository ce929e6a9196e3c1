package testkit_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
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
	target := m.GRPCTarget()
	require.Contains(t, card.SupportedInterfaces, struct{ URL, ProtocolBinding string }{target, "GRPC"})

	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = a2apb.NewA2AServiceClient(conn).GetTask(ctx, &a2apb.GetTaskRequest{Id: "nope"})
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)

	// The declared card (no interfaces) stands for the served one, gRPC
	// included.
	_, err = a2apb.NewA2AServiceClient(conn).SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-1", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hello"}}}}})
	require.NoError(t, err)
	testkit.AssertUsedDeclaredInterface(t, m.Journal(), m.Server().Card(m.Server().AgentNames()[0]))
}

// TestStartTLSWithGRPC: a TLS mock with gRPC on serves gRPC clients, which
// offer only h2 in ALPN, while Mock.Client and any client offering
// http/1.1 as well still get HTTP/1.1 (the transport faults that hijack
// the connection need it).
func TestStartTLSWithGRPC(t *testing.T) {
	t.Parallel()
	m := testkit.StartTLS(t, testkit.WithDialect(wire.V10), testkit.WithStepDelay(-1), testkit.WithGRPC())
	resp, err := m.Client().Get(m.URL + "/.well-known/agent-card.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "HTTP/1.1", resp.Proto)
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding string } `json:"supportedInterfaces"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	target := m.GRPCTarget()
	require.Contains(t, card.SupportedInterfaces, struct{ URL, ProtocolBinding string }{target, "GRPC"})

	// A client offering both protocols, h2 first, is answered over HTTP/1.1.
	both := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: m.CertPool(), MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}}
	defer both.CloseIdleConnections()
	resp2, err := both.Get(m.URL + "/.well-known/agent-card.json")
	require.NoError(t, err)
	_ = resp2.Body.Close()
	require.Equal(t, "HTTP/1.1", resp2.Proto)

	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: m.CertPool(), MinVersion: tls.VersionTLS12})))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := a2apb.NewA2AServiceClient(conn)
	_, err = c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "nope"})
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	res, err := c.SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-tls", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hello"}}}}})
	require.NoError(t, err)
	require.Equal(t, a2apb.TaskState_TASK_STATE_COMPLETED, res.GetTask().GetStatus().GetState())
}
