package record_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// h2cServer serves h on loopback over HTTP/1.1 and h2c, as a2amock record
// serves its proxy.
func h2cServer(t *testing.T, h http.Handler) string {
	ts := httptest.NewUnstartedServer(h)
	record.ServeH2C(ts.Config)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

// grpcObservation is what a gRPC client saw: everything a replay of its
// recording must reproduce.
type grpcObservation struct {
	CardGRPC     string // the card's GRPC interface, as a host:port relative to the server asked
	SendTaskID   string
	SendState    string
	SendArtifact string
	StreamEvents []string // "task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate:<id>", ...
	StreamTaskID string
	GetState     string
	MissingCode  codes.Code
	MissingMsg   string
}

// runGRPC discovers the gRPC interface from base's card and drives a
// v1.0 gRPC client through a send, a stream, a get and a get of a task
// that does not exist.
func runGRPC(t *testing.T, base string) grpcObservation {
	t.Helper()
	var obs grpcObservation
	card := newClient(t).do(mustGet(t, base+"/.well-known/agent-card.json"))
	for _, ifc := range card["supportedInterfaces"].([]any) {
		if m := ifc.(map[string]any); m["protocolBinding"] == "GRPC" {
			obs.CardGRPC = str(m["url"])
		}
	}
	u, err := url.Parse(base)
	require.NoError(t, err)
	require.Equal(t, u.Host, obs.CardGRPC, "the card's GRPC interface points at the server asked")
	conn, err := grpc.NewClient(obs.CardGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	c := a2apb.NewA2AServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
	msg := func(text string) *a2apb.SendMessageRequest {
		return &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-" + text, Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}}}
	}

	sent, err := c.SendMessage(ctx, msg("hello"))
	require.NoError(t, err)
	task := sent.GetTask()
	require.NotNil(t, task, "SendMessage answered %v", sent)
	obs.SendTaskID, obs.SendState = task.GetId(), task.GetStatus().GetState().String()
	if arts := task.GetArtifacts(); len(arts) > 0 {
		obs.SendArtifact = arts[0].GetArtifactId() + ": " + arts[0].GetParts()[0].GetText()
	}

	stream, err := c.SendStreamingMessage(ctx, msg("stream"))
	require.NoError(t, err)
	evs, err := recvAll(stream)
	require.NoError(t, err)
	for _, ev := range evs {
		switch {
		case ev.GetTask() != nil:
			obs.StreamTaskID = ev.GetTask().GetId()
			obs.StreamEvents = append(obs.StreamEvents, "task:"+ev.GetTask().GetStatus().GetState().String())
		case ev.GetStatusUpdate() != nil:
			obs.StreamEvents = append(obs.StreamEvents, "statusUpdate:"+ev.GetStatusUpdate().GetStatus().GetState().String())
		case ev.GetArtifactUpdate() != nil:
			obs.StreamEvents = append(obs.StreamEvents, "artifactUpdate:"+ev.GetArtifactUpdate().GetArtifact().GetArtifactId())
		default:
			obs.StreamEvents = append(obs.StreamEvents, "other")
		}
	}

	got, err := c.GetTask(ctx, &a2apb.GetTaskRequest{Id: obs.SendTaskID})
	require.NoError(t, err)
	obs.GetState = got.GetStatus().GetState().String()

	_, err = c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "no-such-task"})
	st, _ := status.FromError(err)
	obs.MissingCode, obs.MissingMsg = st.Code(), st.Message()
	return obs
}

func TestRecordAndReplayGRPC(t *testing.T) {
	t.Parallel()
	up, err := server.New(server.Config{Seed: 7, StepDelay: 10 * time.Millisecond, GRPC: true})
	require.NoError(t, err)
	require.NoError(t, up.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = up.Close() })
	upURL, err := url.Parse(up.URL())
	require.NoError(t, err)
	proxy := record.NewProxy(upURL, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	recorded := runGRPC(t, h2cServer(t, proxy))

	// What went through the proxy is what the agent did.
	assert.Equal(t, "TASK_STATE_COMPLETED", recorded.SendState)
	assert.NotEmpty(t, recorded.SendArtifact)
	require.Len(t, recorded.StreamEvents, 4)
	assert.Equal(t, []string{"task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING"}, recorded.StreamEvents[:2])
	assert.True(t, strings.HasPrefix(recorded.StreamEvents[2], "artifactUpdate:"), recorded.StreamEvents[2])
	assert.Equal(t, "statusUpdate:TASK_STATE_COMPLETED", recorded.StreamEvents[3])
	assert.Equal(t, "TASK_STATE_COMPLETED", recorded.GetState)
	assert.Equal(t, codes.NotFound, recorded.MissingCode)

	// The recording holds the calls in the proto's JSON form (the
	// HTTP+JSON binding's) and their status, and survives the file format.
	rec := proxy.Recording()
	var buf bytes.Buffer
	require.NoError(t, rec.Save(&buf))
	rec, err = record.Load(&buf)
	require.NoError(t, err)
	var calls []record.Exchange
	for _, x := range rec.Exchanges {
		if x.Kind == record.KindGRPC {
			calls = append(calls, x)
		}
	}
	require.Len(t, calls, 4, "%+v", rec.Exchanges)
	assert.Equal(t, []string{"SendMessage", "SendStreamingMessage", "GetTask", "GetTask"},
		[]string{calls[0].Method, calls[1].Method, calls[2].Method, calls[3].Method})
	assert.Equal(t, a2apb.ServicePath+"SendMessage", calls[0].Path)
	assert.Contains(t, string(calls[0].Request), `"messageId":"m-hello"`)
	assert.Contains(t, string(calls[0].Response), `"id":"`+recorded.SendTaskID+`"`)
	assert.Len(t, calls[1].Events, 4)
	assert.Equal(t, record.EndEOF, calls[1].End)
	assert.Equal(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"}, calls[1].States())
	assert.Zero(t, calls[2].GRPCStatus)
	assert.Equal(t, int(codes.NotFound), calls[3].GRPCStatus)
	assert.Equal(t, recorded.MissingMsg, calls[3].GRPCMessage)
	assert.NotEmpty(t, calls[3].GRPCDetails, "the ErrorInfo of grpc-status-details-bin")

	// The replay answers the same calls with the same ids, states,
	// artifacts and errors, over gRPC, with no upstream.
	require.NoError(t, up.Close())
	rp, err := replay.New(rec, replay.Options{})
	require.NoError(t, err)
	ts := httptest.NewUnstartedServer(rp)
	rp.Server().ServeGRPCWith(ts.Config)
	ts.Start()
	t.Cleanup(func() { rp.Close(); ts.Close() })
	replayed := runGRPC(t, ts.URL)
	recorded.CardGRPC, replayed.CardGRPC = "", ""
	assert.Equal(t, recorded, replayed)

	// The journal is the server's: the calls over gRPC, the recorded
	// error among them, journaled as replayed from the recorded bytes.
	var grpcRequests int
	var rawDetail string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryRequest && e.Binding == wire.BindingGRPC {
			grpcRequests++
			if strings.Contains(e.Detail, "recorded bytes") {
				rawDetail = e.Detail
			}
		}
	}
	assert.Equal(t, 4, grpcRequests)
	assert.Contains(t, rawDetail, "answered with gRPC status 5")
}
