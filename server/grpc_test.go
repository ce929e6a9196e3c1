package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// grpcRig is a server with the gRPC binding on and a generated client.
func grpcRig(t *testing.T, push bool, bs ...string) (*harness, a2apb.A2AServiceClient) {
	t.Helper()
	var list []behaviors.Behavior
	for _, spec := range bs {
		b, err := behaviors.Parse(spec)
		require.NoError(t, err)
		list = append(list, b)
	}
	h := start(t, server.Config{GRPC: true, StepDelay: -1,
		Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, push), Behaviors: list}}})
	conn, err := grpc.NewClient(strings.TrimPrefix(h.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return h, a2apb.NewA2AServiceClient(conn)
}

func grpcCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
}

func grpcSend(text string) *a2apb.SendMessageRequest {
	return &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-" + text, Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}}}
}

// requireGRPCError checks a status's code and its ErrorInfo reason.
func requireGRPCError(t *testing.T, err error, code codes.Code, reason string) {
	t.Helper()
	st, ok := status.FromError(err)
	require.True(t, ok, "not a gRPC status: %v", err)
	require.Equal(t, code, st.Code(), st.Message())
	var got []string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			got = append(got, info.Reason)
			assert.Equal(t, "a2a-protocol.org", info.Domain)
		}
	}
	require.Equal(t, []string{reason}, got)
}

func TestGRPCCardDeclaresInterfaceOnlyWhenEnabled(t *testing.T) {
	for _, on := range []bool{false, true} {
		h := start(t, server.Config{GRPC: on, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false)}}})
		_, _, body := h.do("GET", "/.well-known/agent-card.json", nil, nil)
		var card struct {
			SupportedInterfaces []struct{ URL, ProtocolBinding string } `json:"supportedInterfaces"`
		}
		require.NoError(t, json.Unmarshal(body, &card))
		var grpcURLs []string
		for _, in := range card.SupportedInterfaces {
			if in.ProtocolBinding == "GRPC" {
				grpcURLs = append(grpcURLs, in.URL)
			}
		}
		if on {
			assert.Equal(t, []string{strings.TrimPrefix(h.url, "http://")}, grpcURLs)
		} else {
			assert.Empty(t, grpcURLs)
		}
	}
}

func TestGRPCUnaryLifecycle(t *testing.T) {
	_, c := grpcRig(t, false)
	ctx := grpcCtx(t)
	res, err := c.SendMessage(ctx, grpcSend("hello"))
	require.NoError(t, err)
	task := res.GetTask()
	require.NotNil(t, task, "%v", res)
	assert.Equal(t, a2apb.TaskState_TASK_STATE_COMPLETED, task.GetStatus().GetState())
	assert.NotEmpty(t, task.GetArtifacts())

	got, err := c.GetTask(ctx, &a2apb.GetTaskRequest{Id: task.GetId()})
	require.NoError(t, err)
	assert.Equal(t, task.GetId(), got.GetId())
	assert.Equal(t, task.GetContextId(), got.GetContextId())

	list, err := c.ListTasks(ctx, &a2apb.ListTasksRequest{})
	require.NoError(t, err)
	require.Len(t, list.GetTasks(), 1)
	assert.Equal(t, task.GetId(), list.GetTasks()[0].GetId())

	_, err = c.CancelTask(ctx, &a2apb.CancelTaskRequest{Id: task.GetId()})
	requireGRPCError(t, err, codes.FailedPrecondition, "TASK_NOT_CANCELABLE")
	_, err = c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "nope"})
	requireGRPCError(t, err, codes.NotFound, "TASK_NOT_FOUND")
	_, err = c.GetExtendedAgentCard(ctx, &a2apb.GetExtendedAgentCardRequest{})
	requireGRPCError(t, err, codes.FailedPrecondition, "UNSUPPORTED_OPERATION")
	_, err = c.CreateTaskPushNotificationConfig(ctx, &a2apb.TaskPushNotificationConfig{TaskId: task.GetId(), Url: "https://example.com/hook"})
	requireGRPCError(t, err, codes.FailedPrecondition, "PUSH_NOTIFICATION_NOT_SUPPORTED")
	_, err = c.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: task.GetId()})
	if err == nil {
		s, _ := c.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: task.GetId()})
		_, err = s.Recv()
	}
	requireGRPCError(t, err, codes.FailedPrecondition, "UNSUPPORTED_OPERATION")
}

func TestGRPCVersionMetadata(t *testing.T) {
	_, c := grpcRig(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.GetTask(metadata.AppendToOutgoingContext(ctx, "a2a-version", "9.9"), &a2apb.GetTaskRequest{Id: "x"})
	requireGRPCError(t, err, codes.FailedPrecondition, "VERSION_NOT_SUPPORTED")
	// No a2a-version means 0.3, which the v1.0 methods of the gRPC binding
	// are answered in anyway: the request is served.
	_, err = c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "x"})
	requireGRPCError(t, err, codes.NotFound, "TASK_NOT_FOUND")
}

func TestGRPCPushConfigs(t *testing.T) {
	_, c := grpcRig(t, true)
	ctx := grpcCtx(t)
	res, err := c.SendMessage(ctx, grpcSend("hi"))
	require.NoError(t, err)
	id := res.GetTask().GetId()
	pc, err := c.CreateTaskPushNotificationConfig(ctx, &a2apb.TaskPushNotificationConfig{TaskId: id, Url: "https://example.com/hook"})
	require.NoError(t, err)
	require.NotEmpty(t, pc.GetId())
	got, err := c.GetTaskPushNotificationConfig(ctx, &a2apb.GetTaskPushNotificationConfigRequest{TaskId: id, Id: pc.GetId()})
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/hook", got.GetUrl())
	list, err := c.ListTaskPushNotificationConfigs(ctx, &a2apb.ListTaskPushNotificationConfigsRequest{TaskId: id})
	require.NoError(t, err)
	assert.Len(t, list.GetConfigs(), 1)
	_, err = c.DeleteTaskPushNotificationConfig(ctx, &a2apb.DeleteTaskPushNotificationConfigRequest{TaskId: id, Id: pc.GetId()})
	require.NoError(t, err)
	_, err = c.GetTaskPushNotificationConfig(ctx, &a2apb.GetTaskPushNotificationConfigRequest{TaskId: id, Id: pc.GetId()})
	require.Error(t, err)
}

func TestGRPCStream(t *testing.T) {
	h, c := grpcRig(t, false)
	s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("stream me"))
	require.NoError(t, err)
	var kinds []string
	var last a2apb.TaskState
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch p := ev.GetPayload().(type) {
		case *a2apb.StreamResponse_Task:
			kinds, last = append(kinds, "task"), p.Task.GetStatus().GetState()
		case *a2apb.StreamResponse_StatusUpdate:
			kinds, last = append(kinds, "status"), p.StatusUpdate.GetStatus().GetState()
		case *a2apb.StreamResponse_ArtifactUpdate:
			kinds = append(kinds, "artifact")
		default:
			kinds = append(kinds, "other")
		}
	}
	require.NotEmpty(t, kinds)
	assert.Equal(t, "task", kinds[0])
	assert.Contains(t, kinds, "artifact")
	assert.Equal(t, a2apb.TaskState_TASK_STATE_COMPLETED, last)
	// The journal names the binding.
	var sawGRPC bool
	for _, e := range h.srv.Journal().Entries() {
		sawGRPC = sawGRPC || e.Binding == server.BindingGRPC
	}
	assert.True(t, sawGRPC)
}

func TestGRPCTransportBehaviors(t *testing.T) {
	t.Run("http-error 503 is UNAVAILABLE", func(t *testing.T) {
		_, c := grpcRig(t, false, "http-error:status=503")
		_, err := c.GetTask(grpcCtx(t), &a2apb.GetTaskRequest{Id: "x"})
		assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
	})
	t.Run("connection-reset is RST_STREAM", func(t *testing.T) {
		_, c := grpcRig(t, false, "connection-reset")
		_, err := c.SendMessage(grpcCtx(t), grpcSend("x"))
		require.Error(t, err)
		assert.Equal(t, codes.Internal, status.Code(err), "%v", err)
		assert.Contains(t, err.Error(), "RST_STREAM")
	})
	t.Run("stream-eof-mid-frame ends the call mid-message, with no trailers", func(t *testing.T) {
		h, c := grpcRig(t, false, "stream-eof-mid-frame:after=1")
		s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("x"))
		require.NoError(t, err)
		first, err := s.Recv()
		require.NoError(t, err)
		assert.NotNil(t, first.GetTask(), "the first event is whole")
		_, err = s.Recv()
		require.Error(t, err, "the cut message is not a clean end of the stream")
		assert.Equal(t, codes.Internal, status.Code(err), "%v", err)
		// What went out: a message and a half, and no grpc-status at all
		// (the trailers said OK before: a lax client saw a clean end).
		code, x, b := h.wire("?request=1")
		require.Equal(t, http.StatusOK, code, "body: %s", b)
		assert.Empty(t, x.Trailer, "no trailers after the cut message")
		assert.Empty(t, x.RespHead["Grpc-Status"])
	})
	t.Run("stream-no-final ends without the final status", func(t *testing.T) {
		_, c := grpcRig(t, false, "stream-no-final")
		s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("x"))
		require.NoError(t, err)
		var last a2apb.TaskState
		for {
			ev, err := s.Recv()
			if err != nil {
				break
			}
			if su := ev.GetStatusUpdate(); su != nil {
				last = su.GetStatus().GetState()
			}
		}
		assert.NotEqual(t, a2apb.TaskState_TASK_STATE_COMPLETED, last)
	})
}

func TestGRPCBadCalls(t *testing.T) {
	h, c := grpcRig(t, false)
	conn, err := grpc.NewClient(strings.TrimPrefix(h.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	err = conn.Invoke(grpcCtx(t), "/lf.a2a.v1.A2AService/Nope", &a2apb.GetTaskRequest{}, &a2apb.Task{})
	assert.Equal(t, codes.Unimplemented, status.Code(err))
	// An empty message is a request without a message: INVALID_ARGUMENT.
	_, err = c.SendMessage(grpcCtx(t), &a2apb.SendMessageRequest{})
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
}

// TestGRPCTenantRoutesToAgent: every agent shares the gRPC endpoint. The
// card of an agent below the root declares the GRPC interface with its name
// as tenant, and a call carrying that tenant is that agent's; a call with
// no tenant, or one naming no agent, is the root agent's.
func TestGRPCTenantRoutesToAgent(t *testing.T) {
	h := start(t, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "main", Card: testCard(wire.V10, false)}, {Name: "other", Card: testCard(wire.V10, false)}}})
	grpcIface := func(path string) (url, tenant string) {
		_, _, body := h.do("GET", path, nil, nil)
		var card struct {
			SupportedInterfaces []struct{ URL, ProtocolBinding, Tenant string } `json:"supportedInterfaces"`
		}
		require.NoError(t, json.Unmarshal(body, &card))
		for _, in := range card.SupportedInterfaces {
			if in.ProtocolBinding == "GRPC" {
				return in.URL, in.Tenant
			}
		}
		t.Fatalf("the card at %s declares no GRPC interface: %s", path, body)
		return "", ""
	}
	target := strings.TrimPrefix(h.url, "http://")
	url, tenant := grpcIface("/.well-known/agent-card.json")
	assert.Equal(t, [2]string{target, ""}, [2]string{url, tenant}, "the root agent's interface has no tenant")
	url, tenant = grpcIface("/agents/other/.well-known/agent-card.json")
	assert.Equal(t, [2]string{target, "other"}, [2]string{url, tenant})

	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	c := a2apb.NewA2AServiceClient(conn)
	ctx := grpcCtx(t)
	send := func(tenant, text string) *a2apb.Task {
		req := grpcSend(text)
		req.Tenant = tenant
		res, err := c.SendMessage(ctx, req)
		require.NoError(t, err)
		return res.GetTask()
	}
	other := send("other", "for other")
	send("", "for main")
	send("nobody", "for main too")
	var agents []string
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == server.EntryRequest {
			agents = append(agents, e.Agent)
		}
	}
	assert.Equal(t, []string{"other", "main", "main"}, agents)

	got, err := c.GetTask(ctx, &a2apb.GetTaskRequest{Tenant: "other", Id: other.GetId()})
	require.NoError(t, err)
	assert.Equal(t, other.GetId(), got.GetId())
	_, err = c.GetTask(ctx, &a2apb.GetTaskRequest{Id: other.GetId()})
	requireGRPCError(t, err, codes.NotFound, "TASK_NOT_FOUND")
}
