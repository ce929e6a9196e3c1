package record_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/internal/cardlink"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// streamGRPC streams one message from the gRPC server at host and returns
// the events' kinds and how the call ended.
func streamGRPC(t *testing.T, host, messageID string) ([]string, string) {
	t.Helper()
	conn, err := grpc.NewClient(host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := a2apb.NewA2AServiceClient(conn).SendStreamingMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"),
		&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: messageID, Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	require.NoError(t, err)
	evs, err := recvAll(stream)
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, ev.String()[:10])
	}
	if err != nil {
		st, _ := status.FromError(err)
		return kinds, st.Code().String() + ": " + st.Message()
	}
	return kinds, "eof"
}

// recvAll reads a server stream to its end: its messages, and the error
// it ended with (nil at a clean end).
func recvAll[T any](s interface{ Recv() (T, error) }) ([]T, error) {
	var out []T
	for {
		m, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
}

// grpcRig starts an a2amock agent serving gRPC with the given behaviors,
// a recording proxy in front of it, and returns both's gRPC addresses.
func grpcRig(t *testing.T, agent server.AgentConfig) (upstream string, proxy *record.Proxy, proxied string) {
	t.Helper()
	up, err := server.New(server.Config{Seed: 7, StepDelay: -1, GRPC: true, Agents: []server.AgentConfig{agent}})
	require.NoError(t, err)
	require.NoError(t, up.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = up.Close() })
	u, err := url.Parse(up.URL())
	require.NoError(t, err)
	proxy = record.NewProxy(u, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	pu, err := url.Parse(h2cServer(t, proxy))
	require.NoError(t, err)
	return u.Host, proxy, pu.Host
}

// replayGRPC serves rec over HTTP and gRPC as a2amock replay does, with
// the given behaviors, and returns its gRPC address.
func replayGRPC(t *testing.T, rec *record.Recording, bs ...behaviors.Behavior) (*replay.Replayer, string) {
	t.Helper()
	rp, err := replay.New(rec, replay.Options{Behaviors: bs})
	require.NoError(t, err)
	ts := httptest.NewUnstartedServer(rp)
	rp.Server().ServeGRPCWith(ts.Config)
	ts.Start()
	t.Cleanup(func() { rp.Close(); ts.Close() })
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	return rp, u.Host
}

// A stream the agent broke is recorded as it broke and replayed from the
// recorded bytes: the client sees at the replay what it saw from the agent.
func TestRecordAndReplayGRPCStreamFaults(t *testing.T) {
	t.Parallel()
	// The client sees through the proxy what it saw from the agent. A
	// JSON answer (stream-error-as-json) once differed: the proxy
	// flushed it, and net/http's HTTP/2 server ended the stream in an
	// empty DATA frame after the body (the agent's ends in the frame
	// carrying it: TestProxyEndsAPlainAnswerWithItsBody), which grpc-go
	// reported as Internal, "server closed the stream without sending
	// trailers", rather than as the content type.
	for _, tc := range []struct {
		behavior string
		end      record.StreamEnd
	}{
		{"stream-eof-mid-frame", record.EndTruncated},
		{"truncated-body", record.EndTruncated},
		{"stream-error-as-json", ""},
	} {
		t.Run(tc.behavior, func(t *testing.T) {
			t.Parallel()
			b, err := behaviors.Catalogue().Parse(tc.behavior)
			require.NoError(t, err)
			upstream, proxy, proxied := grpcRig(t, server.AgentConfig{Name: "a", Behaviors: []behaviors.Behavior{b}})
			directEvents, directEnd := streamGRPC(t, upstream, "m-direct")
			require.NotEqual(t, "eof", directEnd, "the behavior breaks the stream")
			proxiedEvents, proxiedEnd := streamGRPC(t, proxied, "m-proxied")
			require.Equal(t, directEvents, proxiedEvents)
			require.Equal(t, directEnd, proxiedEnd)

			rec := proxy.Recording()
			require.Len(t, rec.Exchanges, 1)
			x := rec.Exchanges[0]
			assert.Equal(t, record.KindGRPC, x.Kind)
			assert.Equal(t, tc.end, x.End)
			if tc.end == record.EndTruncated {
				assert.NotEmpty(t, x.Tail, "the start of the cut message")
			} else {
				assert.Equal(t, "application/json", x.ContentType)
				assert.Contains(t, string(x.Response), "streaming failed", "an answer that is not gRPC is kept as its body")
			}

			rp, replayed := replayGRPC(t, rec)
			replayedEvents, replayedEnd := streamGRPC(t, replayed, "m-proxied")
			assert.Equal(t, directEvents, replayedEvents)
			assert.Equal(t, directEnd, replayedEnd)
			var detail string
			for _, e := range rp.Journal() {
				if e.Kind == server.EntryRequest {
					detail = e.Detail
				}
			}
			assert.Contains(t, detail, "recorded bytes of exchange 0")
		})
	}
}

// A v0.3 agent's gRPC service (a2a.v1.A2AService) is recorded too, and
// replayed through the engine as v1.0's is: the client sees the same
// answers, the journal says v0.3 over gRPC, played by the replay (the
// recorded GetTask answer standing in for the engine's), but for the call
// answered with an error status, replayed as recorded. A behavior acts on
// the replayed stream (skip-working leaves its working event out), which
// only the engine can do. A call of no A2A method passes through
// unrecorded.
func TestRecordAndReplayGRPC03(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Name: "v03", Description: "A v0.3 agent.", Version: "1", Dialect: wire.V03,
		Capabilities: cards.Capabilities{Streaming: true}, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{{ID: "echo", Name: "Echo", Description: "Answers.", Tags: []string{"echo"}}}}
	_, proxy, proxied := grpcRig(t, server.AgentConfig{Name: "a", Card: card})
	session := func(host string) []string {
		conn, err := grpc.NewClient(host, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := a2apb03.NewA2AServiceClient(conn)
		msg := func(id string) *a2apb03.SendMessageRequest {
			return &a2apb03.SendMessageRequest{
				Request:       &a2apb03.Message{MessageId: id, Role: a2apb03.Role_ROLE_USER, Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}},
				Configuration: &a2apb03.SendMessageConfiguration{Blocking: true}}
		}
		var seen []string
		resp, err := c.SendMessage(ctx, msg("m-1"))
		require.NoError(t, err)
		task := resp.GetTask()
		seen = append(seen, "send "+task.GetId()+" "+task.GetStatus().GetState().String())
		stream, err := c.SendStreamingMessage(ctx, msg("m-2"))
		require.NoError(t, err)
		evs, err := recvAll(stream)
		require.NoError(t, err)
		for _, ev := range evs {
			seen = append(seen, "event "+ev.String())
		}
		got, err := c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "tasks/" + task.GetId()})
		require.NoError(t, err)
		seen = append(seen, "get "+got.GetStatus().GetState().String())
		_, err = c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "tasks/no-such-task"})
		st, _ := status.FromError(err)
		seen = append(seen, "missing "+st.Code().String()+" "+st.Message())
		err = conn.Invoke(ctx, a2apb03.ServicePath+"NoSuchMethod", &a2apb03.GetTaskRequest{}, &a2apb03.Task{})
		seen = append(seen, "unknown "+status.Code(err).String())
		return seen
	}
	recorded := session(proxied)
	require.Len(t, recorded, 8, "%q", recorded)
	assert.Contains(t, recorded[0], "TASK_STATE_COMPLETED")
	assert.Contains(t, recorded[6], "NotFound")
	assert.Equal(t, "unknown Unimplemented", recorded[7])

	rec := proxy.Recording()
	var paths []string
	for _, x := range rec.Exchanges {
		paths = append(paths, x.Path)
	}
	assert.Equal(t, []string{a2apb03.ServicePath + "SendMessage", a2apb03.ServicePath + "SendStreamingMessage",
		a2apb03.ServicePath + "GetTask", a2apb03.ServicePath + "GetTask"}, paths, "the unknown method is not recorded")

	rp, replayed := replayGRPC(t, rec)
	assert.Equal(t, recorded[:7], session(replayed)[:7])
	var calls []string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryRequest && e.Path != "" && e.Path != a2apb03.ServicePath+"NoSuchMethod" {
			assert.Equal(t, wire.V03, e.Dialect, "%+v", e)
			assert.Equal(t, wire.BindingGRPC, e.Binding, "%+v", e)
			call := string(e.Op) + ": " + e.Detail
			for _, a := range e.Acted {
				call += " " + a.Behavior + "/" + a.Hook
			}
			calls = append(calls, call)
		}
	}
	assert.Equal(t, []string{
		"send:  replay/decide replay/plan replay/result",
		"stream:  replay/decide replay/plan replay/stream-event",
		"get-task:  replay/result",
		"get-task: recorded bytes of exchange 3: answered with gRPC status 5",
	}, calls, "played by the engine, but for the error status")

	skipping, err := behaviors.Catalogue().Parse("skip-working")
	require.NoError(t, err)
	_, replayed = replayGRPC(t, rec, skipping)
	// The events after the one left out are the engine's renderings (the
	// recorded ones stand in at their own places only), with its
	// timestamps.
	stamp := regexp.MustCompile(`timestamp:\{[^}]*\}`)
	var withoutWorking, skipped []string
	for _, s := range recorded[:7] {
		if !strings.Contains(s, "TASK_STATE_WORKING") {
			withoutWorking = append(withoutWorking, stamp.ReplaceAllString(s, "timestamp"))
		}
	}
	require.Less(t, len(withoutWorking), 7, "the recorded stream went through working: %q", recorded)
	for _, s := range session(replayed)[:len(withoutWorking)] {
		skipped = append(skipped, stamp.ReplaceAllString(s, "timestamp"))
	}
	assert.Equal(t, withoutWorking, skipped, "the replayed stream, without its working event")
}

// An https upstream is reached over h2 with TLS, with the TLS settings of
// ProxyOptions.Client's transport: the client speaks h2c to the proxy.
func TestProxyGRPCToTLSUpstream(t *testing.T) {
	t.Parallel()
	up := testkit.StartTLS(t, testkit.WithSeed(3), testkit.WithStepDelay(-1), testkit.WithGRPC())
	u, err := url.Parse(up.URL)
	require.NoError(t, err)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: up.CertPool(), MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	proxy := record.NewProxy(u, record.ProxyOptions{Client: &http.Client{Transport: tr}})
	t.Cleanup(proxy.Close)
	pu, err := url.Parse(h2cServer(t, proxy))
	require.NoError(t, err)
	events, end := streamGRPC(t, pu.Host, "m-tls")
	assert.Equal(t, "eof", end)
	assert.Len(t, events, 4)
	rec := proxy.Recording()
	require.Len(t, rec.Exchanges, 1)
	assert.Equal(t, record.EndEOF, rec.Exchanges[0].End)
	assert.Len(t, rec.Exchanges[0].Events, 4)
}

// h2Frame is what an HTTP/2 frame of an answer says, as far as a client
// can tell two answers apart by it: its header fields in no order (the
// servers write them in map order), not the Date header.
type h2Frame struct {
	Type      string
	EndStream bool
	Fields    []string
	Data      string
}

// answerFrames makes one gRPC SendStreamingMessage call to host over a
// raw h2c connection and returns the frames of its answer, up to the end
// of the stream.
func answerFrames(t *testing.T, host string) []h2Frame {
	t.Helper()
	c, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = c.Write([]byte(http2.ClientPreface))
	require.NoError(t, err)
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	// Windows wide open: the answer is read whole without WINDOW_UPDATEs.
	require.NoError(t, fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 30}))
	require.NoError(t, fr.WriteWindowUpdate(0, 1<<30))
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", host}, {":path", a2apb.ServicePath + "SendStreamingMessage"},
		{"content-type", "application/grpc"}, {"te", "trailers"}, {"a2a-version", "1.0"}} {
		require.NoError(t, enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}))
	}
	require.NoError(t, fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true}))
	msg, err := proto.Marshal(&a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-frames", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	require.NoError(t, err)
	require.NoError(t, fr.WriteData(1, true, a2apb.AppendMessage(nil, msg)))
	var frames []h2Frame
	for {
		f, err := fr.ReadFrame()
		require.NoError(t, err, "after %+v", frames)
		switch f := f.(type) {
		case *http2.MetaHeadersFrame:
			h := h2Frame{Type: "HEADERS", EndStream: f.StreamEnded()}
			for _, hf := range f.Fields {
				if hf.Name != "date" {
					h.Fields = append(h.Fields, hf.Name+": "+hf.Value)
				}
			}
			slices.Sort(h.Fields)
			frames = append(frames, h)
		case *http2.DataFrame:
			frames = append(frames, h2Frame{Type: "DATA", EndStream: f.StreamEnded(), Data: string(f.Data())})
		case *http2.RSTStreamFrame:
			return append(frames, h2Frame{Type: "RST_STREAM " + f.ErrCode.String(), EndStream: true})
		}
		if n := len(frames); n > 0 && frames[n-1].EndStream {
			return frames
		}
	}
}

// A call the agent answers with no gRPC answer (a JSON body) is passed
// on in the frames the agent sent it in: the stream ends in the DATA frame
// that carries the body, not in an empty one after it, which grpc-go
// reports as a gRPC answer without trailers instead of reporting the
// content type it got.
func TestProxyEndsAPlainAnswerWithItsBody(t *testing.T) {
	t.Parallel()
	b, err := behaviors.Catalogue().Parse("stream-error-as-json")
	require.NoError(t, err)
	upstream, _, proxied := grpcRig(t, server.AgentConfig{Name: "a", Behaviors: []behaviors.Behavior{b}})
	direct := answerFrames(t, upstream)
	require.Len(t, direct, 2, "%+v", direct)
	assert.True(t, direct[1].EndStream && direct[1].Data != "", "the agent ends the stream with the body: %+v", direct)
	assert.Equal(t, direct, answerFrames(t, proxied))
}

// A plain answer larger than net/http's 4 KiB response buffer, which the
// proxy cannot hold whole until its handler returns, still ends in a DATA
// frame that carries its last bytes, whatever its size. The agent here
// writes it at once, and its own stream ends in an empty frame (net/http
// sends a write larger than its buffer as it comes); the sizes are such
// that the proxy's last read of it is larger than that buffer too.
func TestProxyEndsALargePlainAnswerWithItsBody(t *testing.T) {
	t.Parallel()
	for _, n := range []int{5 << 10, 96 << 10, 1 << 20} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			body := `{"error":"` + strings.Repeat("x", n-12) + `"}`
			agent := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, body)
			}))
			u, err := url.Parse(agent)
			require.NoError(t, err)
			proxy := record.NewProxy(u, record.ProxyOptions{})
			t.Cleanup(proxy.Close)
			pu, err := url.Parse(h2cServer(t, proxy))
			require.NoError(t, err)
			frames := answerFrames(t, pu.Host)
			assert.Contains(t, frames[0].Fields, ":status: 503")
			var got strings.Builder
			for _, f := range frames[1:] {
				require.Equal(t, "DATA", f.Type, "%+v", f)
				got.WriteString(f.Data)
			}
			assert.Equal(t, body, got.String())
			last := frames[len(frames)-1]
			assert.True(t, last.EndStream && last.Data != "", "the stream ends with the body's last bytes (in %d frames)", len(frames))
			require.Len(t, proxy.Recording().Exchanges, 1)
			assert.Equal(t, http.StatusServiceUnavailable, proxy.Recording().Exchanges[0].Status)
		})
	}
}

// gRPC calls go to the address the agent's card declares for GRPC, not to
// the upstream URL's host, once the proxy has served that card: here the
// card is served by one server and the gRPC service by another.
func TestProxyGRPCGoesWhereTheCardSays(t *testing.T) {
	t.Parallel()
	agent := testkit.Start(t, testkit.WithSeed(3), testkit.WithStepDelay(-1), testkit.WithGRPC())
	resp, err := agent.Client().Get(agent.CardURL(""))
	require.NoError(t, err)
	card, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card) // declares GRPC at the agent's host:port
	}))
	t.Cleanup(cards.Close)
	u, err := url.Parse(cards.URL)
	require.NoError(t, err)
	proxy := record.NewProxy(u, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	front := h2cServer(t, proxy)
	fu, err := url.Parse(front)
	require.NoError(t, err)

	// Before any card, the proxy tries the upstream URL's host, which
	// serves no gRPC.
	_, end := streamGRPC(t, fu.Host, "m-early")
	assert.NotEqual(t, "eof", end)

	resp, err = http.Get(front + "/.well-known/agent-card.json")
	require.NoError(t, err)
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, fu.Host, cardlink.GRPCAddress(served, false), "the card the client gets points gRPC at the proxy")
	events, end := streamGRPC(t, fu.Host, "m-after-card")
	assert.Equal(t, "eof", end)
	assert.Len(t, events, 4)
	var calls int
	for _, e := range agent.Journal() {
		if e.Kind == server.EntryRequest && e.Binding == wire.BindingGRPC {
			calls++
		}
	}
	assert.Equal(t, 1, calls, "the call after the card reached the agent the card named")
}
