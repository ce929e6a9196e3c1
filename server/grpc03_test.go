package server_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// grpc03Client dials h's host:port with the v0.3 service's generated client.
func grpc03Client(t *testing.T, h *harness) a2apb03.A2AServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(h.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return a2apb03.NewA2AServiceClient(conn)
}

// grpc03Rig is a server with gRPC on whose one agent has a v0.3 card, and a
// v0.3 gRPC client.
func grpc03Rig(t *testing.T, cfg server.Config, push bool, bs ...string) (*harness, a2apb03.A2AServiceClient) {
	t.Helper()
	var list []behaviors.Behavior
	for _, spec := range bs {
		b, err := behaviors.Parse(spec)
		require.NoError(t, err)
		list = append(list, b)
	}
	cfg.GRPC = true
	cfg.Agents = []server.AgentConfig{{Name: "main", Card: testCard(wire.V03, push), Behaviors: list}}
	h := start(t, cfg)
	return h, grpc03Client(t, h)
}

func grpc03Ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func grpc03Send(text string, blocking bool) *a2apb03.SendMessageRequest {
	return &a2apb03.SendMessageRequest{
		Request: &a2apb03.Message{MessageId: "m-" + text, Role: a2apb03.Role_ROLE_USER,
			Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: text}}}},
		Configuration: &a2apb03.SendMessageConfiguration{Blocking: blocking}}
}

// requireGRPC03Error checks a status's code, its ErrorInfo reason and that
// its message starts with the v0.3 error name.
func requireGRPC03Error(t *testing.T, err error, code codes.Code, reason, name string) {
	t.Helper()
	requireGRPCError(t, err, code, reason)
	assert.True(t, strings.HasPrefix(status.Convert(err).Message(), name+": "), "%v", err)
}

// TestGRPC03Lifecycle: every unary rpc of a2a.v1.A2AService answers a
// v0.3 agent's canonical results in the v0.3 proto, and the journal
// records the calls as v0.3 over GRPC under the proto's method names.
func TestGRPC03Lifecycle(t *testing.T) {
	t.Parallel()
	h, c := grpc03Rig(t, server.Config{StepDelay: -1}, false)
	ctx := grpc03Ctx(t)
	res, err := c.SendMessage(ctx, grpc03Send("hello", true))
	require.NoError(t, err)
	task := res.GetTask()
	require.NotNil(t, task, "%v", res)
	assert.Equal(t, a2apb03.TaskState_TASK_STATE_COMPLETED, task.GetStatus().GetState())
	require.NotEmpty(t, task.GetArtifacts())
	assert.NotEmpty(t, task.GetArtifacts()[0].GetParts()[0].GetText())
	require.NotEmpty(t, task.GetHistory())
	assert.Equal(t, "hello", task.GetHistory()[0].GetContent()[0].GetText())

	got, err := c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "tasks/" + task.GetId()})
	require.NoError(t, err)
	assert.Equal(t, task.GetId(), got.GetId())
	assert.Equal(t, task.GetContextId(), got.GetContextId())
	got, err = c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "tasks/" + task.GetId(), HistoryLength: 1})
	require.NoError(t, err)
	assert.Len(t, got.GetHistory(), 1)

	_, err = c.CancelTask(ctx, &a2apb03.CancelTaskRequest{Name: "tasks/" + task.GetId()})
	requireGRPC03Error(t, err, codes.FailedPrecondition, "TASK_NOT_CANCELABLE", "TaskNotCancelableError")
	_, err = c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "tasks/nope"})
	requireGRPC03Error(t, err, codes.NotFound, "TASK_NOT_FOUND", "TaskNotFoundError")
	_, err = c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "nope"})
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), "InvalidParamsError: ")
	_, err = c.GetAgentCard(ctx, &a2apb03.GetAgentCardRequest{})
	// The card does not declare the extended card: capability first.
	requireGRPC03Error(t, err, codes.FailedPrecondition, "UNSUPPORTED_OPERATION", "UnsupportedOperationError")
	_, err = c.CreateTaskPushNotificationConfig(ctx, &a2apb03.CreateTaskPushNotificationConfigRequest{Parent: "tasks/" + task.GetId(),
		Config: &a2apb03.TaskPushNotificationConfig{PushNotificationConfig: &a2apb03.PushNotificationConfig{Url: "https://example.com/hook"}}})
	requireGRPC03Error(t, err, codes.FailedPrecondition, "PUSH_NOTIFICATION_NOT_SUPPORTED", "PushNotificationNotSupportedError")

	var methods []string
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind != server.EntryRequest {
			continue
		}
		methods = append(methods, e.Method)
		assert.Equal(t, wire.V03, e.Dialect, "%+v", e)
		assert.Equal(t, server.BindingGRPC, e.Binding, "%+v", e)
		assert.Equal(t, "main", e.Agent)
	}
	assert.Equal(t, []string{"SendMessage", "GetTask", "GetTask", "CancelTask", "GetTask", "GetTask", "GetAgentCard", "CreateTaskPushNotificationConfig"}, methods)
}

// TestGRPC03Stream: SendStreamingMessage streams the task, then its
// updates, the last one final; TaskSubscription attaches to a running task
// and ends when a cancel makes it terminal.
func TestGRPC03Stream(t *testing.T) {
	t.Parallel()
	t.Run("send", func(t *testing.T) {
		t.Parallel()
		_, c := grpc03Rig(t, server.Config{StepDelay: -1}, false)
		s, err := c.SendStreamingMessage(grpc03Ctx(t), grpc03Send("stream me", true))
		require.NoError(t, err)
		var kinds []string
		var last *a2apb03.TaskStatusUpdateEvent
		for {
			ev, err := s.Recv()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			switch p := ev.GetPayload().(type) {
			case *a2apb03.StreamResponse_Task:
				kinds = append(kinds, "task")
			case *a2apb03.StreamResponse_StatusUpdate:
				kinds, last = append(kinds, "status"), p.StatusUpdate
			case *a2apb03.StreamResponse_ArtifactUpdate:
				kinds = append(kinds, "artifact")
			default:
				kinds = append(kinds, "other")
			}
		}
		require.NotEmpty(t, kinds)
		assert.Equal(t, "task", kinds[0])
		assert.Contains(t, kinds, "artifact")
		require.NotNil(t, last)
		assert.Equal(t, "status", kinds[len(kinds)-1])
		assert.Equal(t, a2apb03.TaskState_TASK_STATE_COMPLETED, last.GetStatus().GetState())
		assert.True(t, last.GetFinal(), "v0.3's last event is final")
	})
	t.Run("subscribe and cancel", func(t *testing.T) {
		t.Parallel()
		_, c := grpc03Rig(t, server.Config{StepDelay: time.Hour}, false)
		ctx := grpc03Ctx(t)
		res, err := c.SendMessage(ctx, grpc03Send("long", false))
		require.NoError(t, err)
		id := res.GetTask().GetId()
		require.NotEmpty(t, id, "%v", res)
		s, err := c.TaskSubscription(ctx, &a2apb03.TaskSubscriptionRequest{Name: "tasks/" + id})
		require.NoError(t, err)
		// The stream is open once its headers are in; the cancel then
		// reaches it.
		_, err = s.Header()
		require.NoError(t, err)
		canceled, err := c.CancelTask(ctx, &a2apb03.CancelTaskRequest{Name: "tasks/" + id})
		require.NoError(t, err)
		assert.Equal(t, a2apb03.TaskState_TASK_STATE_CANCELLED, canceled.GetStatus().GetState())
		var states []a2apb03.TaskState
		final := false
		for {
			ev, err := s.Recv()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			if su := ev.GetStatusUpdate(); su != nil {
				assert.Equal(t, id, su.GetTaskId())
				states, final = append(states, su.GetStatus().GetState()), su.GetFinal()
			}
		}
		assert.True(t, final, "the last status update is final")
		require.NotEmpty(t, states)
		assert.Equal(t, a2apb03.TaskState_TASK_STATE_CANCELLED, states[len(states)-1])
	})
}

// TestGRPC03PushConfigs: create, get, list and delete, with the proto's
// resource names.
func TestGRPC03PushConfigs(t *testing.T) {
	t.Parallel()
	_, c := grpc03Rig(t, server.Config{StepDelay: -1}, true)
	ctx := grpc03Ctx(t)
	res, err := c.SendMessage(ctx, grpc03Send("hi", true))
	require.NoError(t, err)
	id := res.GetTask().GetId()
	pc, err := c.CreateTaskPushNotificationConfig(ctx, &a2apb03.CreateTaskPushNotificationConfigRequest{Parent: "tasks/" + id, ConfigId: "c1",
		Config: &a2apb03.TaskPushNotificationConfig{PushNotificationConfig: &a2apb03.PushNotificationConfig{Url: "https://example.com/hook", Token: "tok"}}})
	require.NoError(t, err)
	assert.Equal(t, "tasks/"+id+"/pushNotificationConfigs/c1", pc.GetName())
	assert.Equal(t, "c1", pc.GetPushNotificationConfig().GetId())
	got, err := c.GetTaskPushNotificationConfig(ctx, &a2apb03.GetTaskPushNotificationConfigRequest{Name: pc.GetName()})
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/hook", got.GetPushNotificationConfig().GetUrl())
	assert.Equal(t, "tok", got.GetPushNotificationConfig().GetToken())
	list, err := c.ListTaskPushNotificationConfig(ctx, &a2apb03.ListTaskPushNotificationConfigRequest{Parent: "tasks/" + id})
	require.NoError(t, err)
	require.Len(t, list.GetConfigs(), 1)
	assert.Equal(t, pc.GetName(), list.GetConfigs()[0].GetName())
	_, err = c.DeleteTaskPushNotificationConfig(ctx, &a2apb03.DeleteTaskPushNotificationConfigRequest{Name: pc.GetName()})
	require.NoError(t, err)
	_, err = c.GetTaskPushNotificationConfig(ctx, &a2apb03.GetTaskPushNotificationConfigRequest{Name: pc.GetName()})
	require.Error(t, err)
	list, err = c.ListTaskPushNotificationConfig(ctx, &a2apb03.ListTaskPushNotificationConfigRequest{Parent: "tasks/" + id})
	require.NoError(t, err)
	assert.Empty(t, list.GetConfigs())
}

// TestGRPC03ExtendedCard: GetAgentCard answers the extended card in the
// v0.3 proto, its security schemes as the proto's oneof.
func TestGRPC03ExtendedCard(t *testing.T) {
	t.Parallel()
	card := testCard(wire.V03, false)
	card.Capabilities.ExtendedAgentCard = true
	ext := testCard(wire.V03, false)
	ext.Name = "Extended"
	ext.SecuritySchemes = map[string]cards.SecurityScheme{"bearer": {Type: cards.SchemeHTTP, Scheme: "bearer", BearerFormat: "JWT"}}
	h := start(t, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{{Name: "main", Card: card, ExtendedCard: ext}}})
	got, err := grpc03Client(t, h).GetAgentCard(grpc03Ctx(t), &a2apb03.GetAgentCardRequest{})
	require.NoError(t, err)
	assert.Equal(t, "Extended", got.GetName())
	assert.Equal(t, "0.3.0", got.GetProtocolVersion())
	assert.Equal(t, "bearer", got.GetSecuritySchemes()["bearer"].GetHttpAuthSecurityScheme().GetScheme())
	assert.Equal(t, []string{"echo", "ask"}, []string{got.GetSkills()[0].GetId(), got.GetSkills()[1].GetId()})
}

// grpc03Iface returns the GRPC interface URL the v0.3 card at path
// declares in additionalInterfaces, "" when none.
func grpc03Iface(t *testing.T, h *harness, path string) string {
	t.Helper()
	_, _, body := h.do("GET", path, nil, nil)
	var card struct {
		ProtocolVersion      string                            `json:"protocolVersion"`
		AdditionalInterfaces []struct{ URL, Transport string } `json:"additionalInterfaces"`
	}
	require.NoError(t, json.Unmarshal(body, &card))
	require.Equal(t, "0.3.0", card.ProtocolVersion, "%s", body)
	url := ""
	for _, in := range card.AdditionalInterfaces {
		if in.Transport == "GRPC" {
			require.Empty(t, url, "one GRPC interface: %s", body)
			url = in.URL
		}
	}
	return url
}

// TestGRPC03CardAndRouting: a v0.3 call carries no tenant, so it reaches
// the root agent when its card is v0.3, else the one agent whose card is;
// only that agent's v0.3 card declares the GRPC interface (host:port), and
// only when the server serves gRPC. With no such agent, or several, the
// call is UNIMPLEMENTED, saying why.
func TestGRPC03CardAndRouting(t *testing.T) {
	t.Parallel()
	agent := func(name string, d wire.Dialect) server.AgentConfig {
		return server.AgentConfig{Name: name, Card: testCard(d, false)}
	}
	sendAs := func(t *testing.T, h *harness) (string, error) {
		_, err := grpc03Client(t, h).SendMessage(grpc03Ctx(t), grpc03Send("who", true))
		var reached string
		for _, e := range h.srv.Journal().Entries() {
			if e.Kind == server.EntryRequest {
				reached = e.Agent
			}
		}
		return reached, err
	}
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{agent("main", wire.V03)}})
		assert.Empty(t, grpc03Iface(t, h, "/.well-known/agent-card.json"))
	})
	t.Run("root v0.3", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{agent("main", wire.V03), agent("other", wire.V03)}})
		target := strings.TrimPrefix(h.url, "http://")
		assert.Equal(t, target, grpc03Iface(t, h, "/.well-known/agent-card.json"))
		assert.Equal(t, target, grpc03Iface(t, h, "/agents/main/.well-known/agent-card.json"))
		assert.Empty(t, grpc03Iface(t, h, "/agents/other/.well-known/agent-card.json"), "its calls would reach the root")
		reached, err := sendAs(t, h)
		require.NoError(t, err)
		assert.Equal(t, "main", reached)
	})
	t.Run("the one v0.3 agent", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{agent("main", wire.V10), agent("old", wire.V03)}})
		assert.Equal(t, strings.TrimPrefix(h.url, "http://"), grpc03Iface(t, h, "/agents/old/.well-known/agent-card.json"))
		reached, err := sendAs(t, h)
		require.NoError(t, err)
		assert.Equal(t, "old", reached)
	})
	t.Run("several v0.3 agents", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{agent("main", wire.V10), agent("old2", wire.V03), agent("old", wire.V03)}})
		assert.Empty(t, grpc03Iface(t, h, "/agents/old/.well-known/agent-card.json"))
		assert.Empty(t, grpc03Iface(t, h, "/agents/old2/.well-known/agent-card.json"))
		_, err := sendAs(t, h)
		assert.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
		assert.Contains(t, status.Convert(err).Message(), "2 hosted agents' cards are (old, old2)")
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{GRPC: true, StepDelay: -1, Agents: []server.AgentConfig{agent("main", wire.V10)}})
		_, err := sendAs(t, h)
		assert.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
		assert.Contains(t, status.Convert(err).Message(), "no hosted agent's card is v0.3")
		// Journaled as refused, for the root, as a v0.3 request.
		entries := h.srv.Journal().Entries()
		require.NotEmpty(t, entries)
		last := entries[len(entries)-1]
		assert.Equal(t, [4]string{"main", "SendMessage", "0.3", "GRPC"}, [4]string{last.Agent, last.Method, string(last.Dialect), string(last.Binding)})
		assert.Equal(t, wire.CodeMethodNotFound, last.ErrorCode)
	})
}

// TestGRPC03TransportBehaviors: transport behaviors take the gRPC meanings
// the v1.0 service gives them.
func TestGRPC03TransportBehaviors(t *testing.T) {
	t.Parallel()
	t.Run("http-error 503 is UNAVAILABLE", func(t *testing.T) {
		t.Parallel()
		_, c := grpc03Rig(t, server.Config{StepDelay: -1}, false, "http-error:status=503")
		_, err := c.GetTask(grpc03Ctx(t), &a2apb03.GetTaskRequest{Name: "tasks/x"})
		assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
	})
	t.Run("stream-eof-mid-frame cuts the stream without trailers", func(t *testing.T) {
		t.Parallel()
		_, c := grpc03Rig(t, server.Config{StepDelay: -1}, false, "stream-eof-mid-frame:after=1")
		s, err := c.SendStreamingMessage(grpc03Ctx(t), grpc03Send("x", true))
		require.NoError(t, err)
		first, err := s.Recv()
		require.NoError(t, err)
		assert.NotNil(t, first.GetTask())
		_, err = s.Recv()
		require.Error(t, err)
		assert.Equal(t, codes.Internal, status.Code(err), "%v", err)
	})
	t.Run("a protocol behavior acts unchanged", func(t *testing.T) {
		t.Parallel()
		_, c := grpc03Rig(t, server.Config{StepDelay: -1}, false, "skip-working")
		s, err := c.SendStreamingMessage(grpc03Ctx(t), grpc03Send("x", true))
		require.NoError(t, err)
		var states []a2apb03.TaskState
		for {
			ev, err := s.Recv()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			if su := ev.GetStatusUpdate(); su != nil {
				states = append(states, su.GetStatus().GetState())
			}
		}
		require.NotEmpty(t, states)
		assert.NotContains(t, states, a2apb03.TaskState_TASK_STATE_WORKING)
		assert.Equal(t, a2apb03.TaskState_TASK_STATE_COMPLETED, states[len(states)-1])
	})
}
