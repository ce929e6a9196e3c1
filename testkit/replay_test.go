package testkit_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// recordSession records a JSON-RPC send and a gRPC send to a mock through
// a2amock's recording proxy and writes the recording to a file; it
// returns the file and the tasks the two sends answered.
func recordSession(t *testing.T) (path, rpcTask, grpcTask string) {
	t.Helper()
	up := testkit.Start(t, testkit.WithSeed(5), testkit.WithStepDelay(-1), testkit.WithGRPC())
	u, err := url.Parse(up.URL)
	require.NoError(t, err)
	proxy := record.NewProxy(u, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	ps := httptest.NewUnstartedServer(proxy)
	record.ServeH2C(ps.Config)
	ps.Start()
	t.Cleanup(ps.Close)
	rpcTask, _ = sendRPC(t, ps.URL, "m-rpc")
	grpcTask, _ = sendGRPC(t, ps.URL, "m-grpc")
	path = filepath.Join(t.TempDir(), "session.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, proxy.Recording().Save(f))
	require.NoError(t, f.Close())
	return path, rpcTask, grpcTask
}

func sendRPC(t *testing.T, base, id string) (string, wire.TaskState) {
	t.Helper()
	c := testkit.NewClient(base + "/")
	defer c.CloseIdleConnections()
	task, err := c.Send(context.Background(), &wire.Message{MessageID: id, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}, reconcile.SendOptions{})
	require.NoError(t, err)
	return task.ID, task.Status.State
}

func sendGRPC(t *testing.T, base, id string) (string, string) {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := a2apb.NewA2AServiceClient(conn).SendMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
		&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: id, Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	require.NoError(t, err)
	return resp.GetTask().GetId(), resp.GetTask().GetStatus().GetState().String()
}

func TestStartReplay(t *testing.T) {
	t.Parallel()
	path, rpcTask, grpcTask := recordSession(t)
	m := testkit.StartReplay(t, path, replay.Options{})

	// The replay answers what the agent answered, over both bindings.
	id, state := sendRPC(t, m.URL, "m-again")
	assert.Equal(t, rpcTask, id)
	assert.Equal(t, wire.StateCompleted, state)
	id, grpcState := sendGRPC(t, m.URL, "m-again-grpc")
	assert.Equal(t, grpcTask, id)
	assert.Equal(t, "TASK_STATE_COMPLETED", grpcState)

	// Its journal reads as a mock's, and so do the assertions.
	var bindings []wire.Binding
	for _, e := range m.Journal() {
		if e.Kind == server.EntryRequest {
			bindings = append(bindings, e.Binding)
		}
	}
	assert.Equal(t, []wire.Binding{wire.BindingJSONRPC, wire.BindingGRPC}, bindings)
	testkit.AssertNoOrphans(t, m.Journal())

	// SetBehavior keeps the replay first; the replay has one agent.
	require.NoError(t, m.SetBehavior("", "stream-drop-events:rate=1"))
	resp, err := m.Client().Get(m.URL + "/_a2amock/behaviors")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var listed struct {
		Behaviors []string `json:"behaviors"`
	}
	require.NoError(t, json.Unmarshal(body, &listed), string(body))
	assert.Equal(t, []string{"replay", "stream-drop-events:rate=1"}, listed.Behaviors)

	// Reset rewinds the recording: the first send is the first again.
	m.Reset()
	id, _ = sendRPC(t, m.URL, "m-after-reset")
	assert.Equal(t, rpcTask, id)
	m.Close()
	m.Close() // a second Close is harmless
}

func TestNewReplayErrors(t *testing.T) {
	t.Parallel()
	path, _, _ := recordSession(t)
	m, err := testkit.NewReplay(path, replay.Options{})
	require.NoError(t, err)
	assert.ErrorContains(t, m.SetBehavior("other", "stream-hang"), `a replay has one agent, "agent", not "other"`)
	assert.ErrorContains(t, m.SetBehavior("", "no-such-behavior"), "no-such-behavior")
	m.Close()

	_, err = testkit.NewReplay(filepath.Join(t.TempDir(), "missing.json"), replay.Options{})
	assert.ErrorIs(t, err, os.ErrNotExist)
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"version\": 1,\n \"exchanges\": [{\"kind\": \"soap\"}]}\n"), 0o600))
	_, err = testkit.NewReplay(bad, replay.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":2:")
}
