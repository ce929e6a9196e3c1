package interop

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
)

// grpcSession is what a2a-go v2's gRPC client saw in one session: all a
// replay of its recording must give it again.
type grpcSession struct {
	TaskID, State, Artifact string
	Events                  []string
	GetState                a2a.TaskState
	NotFound                bool
}

// runGRPCSession discovers the agent at base from its card and, over the
// card's GRPC interface only, sends, streams, gets the task and gets one
// that does not exist.
func runGRPCSession(t *testing.T, base string) grpcSession {
	t.Helper()
	c, _ := v1Client(t, base, grpcBinding)
	ctx := testCtx(t)
	var s grpcSession
	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: userText("record me")})
	s.TaskID, s.State, s.Artifact = string(task.ID), string(task.Status.State), artifactText(t, task)
	for _, ev := range collect(t, c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userText("stream me")})) {
		s.Events = append(s.Events, fmt.Sprintf("%T %s %s", ev, ev.TaskInfo().TaskID, stateOf(ev)))
	}
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	require.NoError(t, err)
	s.GetState = got.Status.State
	_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	s.NotFound = errors.Is(err, a2a.ErrTaskNotFound)
	return s
}

// TestGRPCRecordAndReplay: a2a-go v2's gRPC client runs a session through
// a2amock's recording proxy (the card it resolves points its GRPC
// interface at the proxy), then the same session against the replay of
// the recording, with the agent gone: it sees the same task, states,
// artifact, events and typed error.
func TestGRPCRecordAndReplay(t *testing.T) {
	t.Parallel()
	s := startMock(t, server.Config{Seed: 41, StepDelay: 5 * time.Millisecond, GRPC: true})
	up, err := url.Parse(s.URL())
	require.NoError(t, err)
	proxy := record.NewProxy(up, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	ps := httptest.NewUnstartedServer(proxy)
	record.ServeH2C(ps.Config)
	ps.Start()
	t.Cleanup(ps.Close)
	recorded := runGRPCSession(t, ps.URL)
	assert.Equal(t, string(a2a.TaskStateCompleted), recorded.State)
	assert.True(t, recorded.NotFound)
	require.Len(t, recorded.Events, 4)

	rec := proxy.Recording()
	var methods []string
	for _, x := range rec.Exchanges {
		if x.Kind == record.KindGRPC {
			methods = append(methods, x.Method)
		}
	}
	assert.Equal(t, []string{"SendMessage", "SendStreamingMessage", "GetTask", "GetTask"}, methods)
	require.NoError(t, s.Close())

	rp, err := replay.New(rec, replay.Options{})
	require.NoError(t, err)
	rs := httptest.NewUnstartedServer(rp)
	rp.Server().ServeGRPCWith(rs.Config)
	rs.Start()
	t.Cleanup(func() { rp.Close(); rs.Close() })
	assert.Equal(t, recorded, runGRPCSession(t, rs.URL))
}
