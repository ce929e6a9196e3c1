package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// client is a raw-HTTP v1.0 A2A client that discovers the agent from its
// card and notes what it observes.
type client struct {
	t    *testing.T
	http *http.Client
}

func newClient(t *testing.T) *client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &client{t: t, http: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
}

// observation is what a client saw: everything a replay must reproduce.
type observation struct {
	CardName     string
	RPCURL       string // relative to the base: the card's URLs point at the server asked
	RESTURL      string
	SendID       string
	SendState    string
	SendTaskID   string
	StreamEvents []string // "task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate", ...
	StreamTaskID string
	StreamIDs    []string // JSON-RPC ids of the stream events
	GetID        string
	GetState     string
	RESTState    string
}

func (c *client) rpc(u, method, id string, params any) *http.Request {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	require.NoError(c.t, err)
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(b))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	return req
}

func (c *client) do(req *http.Request) map[string]any {
	resp, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	require.Equal(c.t, http.StatusOK, resp.StatusCode, string(b))
	var out map[string]any
	require.NoError(c.t, json.Unmarshal(b, &out), string(b))
	return out
}

func message(text string) map[string]any {
	return map[string]any{"message": map[string]any{"messageId": "m-" + text, "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": text}}}}
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

// run plays the client's script against base and returns what it saw.
func (c *client) run(base string) observation {
	var o observation
	card := c.do(mustGet(c.t, base+"/.well-known/agent-card.json"))
	o.CardName = str(card["name"])
	ifaces, _ := card["supportedInterfaces"].([]any)
	require.NotEmpty(c.t, ifaces)
	var rpcURL, restURL string
	for _, i := range ifaces {
		switch str(dig(i, "protocolBinding")) {
		case "JSONRPC":
			rpcURL = str(dig(i, "url"))
		case "HTTP+JSON":
			restURL = str(dig(i, "url"))
		}
	}
	require.True(c.t, strings.HasPrefix(rpcURL, base), "the card's JSON-RPC URL %s points at %s", rpcURL, base)
	require.True(c.t, strings.HasPrefix(restURL, base), "the card's HTTP+JSON URL %s points at %s", restURL, base)
	o.RPCURL, o.RESTURL = strings.TrimPrefix(rpcURL, base), strings.TrimPrefix(restURL, base)

	res := c.do(c.rpc(rpcURL, "SendMessage", "send-1", message("one")))
	o.SendID = fmt.Sprint(res["id"])
	o.SendState = str(dig(res, "result", "task", "status", "state"))
	o.SendTaskID = str(dig(res, "result", "task", "id"))

	ctx, cancel := context.WithTimeout(c.t.Context(), 10*time.Second)
	defer cancel()
	s, err := sse.Do(ctx, c.http, c.rpc(rpcURL, "SendStreamingMessage", "stream-2", message("two")))
	require.NoError(c.t, err)
	defer s.Close()
	for ev, err := range s.Events() {
		require.NoError(c.t, err)
		var env map[string]any
		require.NoError(c.t, json.Unmarshal(ev.Data, &env), string(ev.Data))
		o.StreamIDs = append(o.StreamIDs, fmt.Sprint(env["id"]))
		result, _ := env["result"].(map[string]any)
		require.Len(c.t, result, 1, "a StreamResponse has one member: %s", ev.Data)
		for k, v := range result {
			label := k
			if st := str(dig(v, "status", "state")); st != "" {
				label += ":" + st
			}
			o.StreamEvents = append(o.StreamEvents, label)
			if id := str(dig(v, "taskId")); id != "" {
				o.StreamTaskID = id
			} else if id := str(dig(v, "id")); id != "" && k == "task" {
				o.StreamTaskID = id
			}
		}
	}
	require.NotEmpty(c.t, o.StreamTaskID)

	res = c.do(c.rpc(rpcURL, "GetTask", "get-3", map[string]any{"id": o.StreamTaskID}))
	o.GetID = fmt.Sprint(res["id"])
	o.GetState = str(dig(res, "result", "status", "state"))

	res = c.do(mustGet(c.t, restURL+"/tasks/"+url.PathEscape(o.SendTaskID)))
	o.RESTState = str(dig(res, "status", "state"))
	return o
}

func mustGet(t *testing.T, u string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	return req
}

// honest starts an honest a2amock agent on loopback.
func honest(t *testing.T, step time.Duration) *server.Server {
	srv, err := server.New(server.Config{Seed: 7, StepDelay: step})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// recordHonest records the client's script against an honest agent.
func recordHonest(t *testing.T, step time.Duration) (*record.Recording, observation, *server.Server) {
	srv := honest(t, step)
	up, err := url.Parse(srv.URL())
	require.NoError(t, err)
	proxy := record.NewProxy(up, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	obs := newClient(t).run(ps.URL)
	return proxy.Recording(), obs, srv
}

func replayOf(t *testing.T, rec *record.Recording, opts replay.Options) (*replay.Replayer, string) {
	rp, err := replay.New(rec, opts)
	require.NoError(t, err)
	rs := httptest.NewServer(rp)
	t.Cleanup(func() { rp.Close(); rs.Close() })
	return rp, rs.URL
}

func TestRecordAndReplayEndToEnd(t *testing.T) {
	t.Parallel()
	rec, recorded, srv := recordHonest(t, 30*time.Millisecond)

	// What went through the proxy is what the agent did.
	assert.Equal(t, "TASK_STATE_COMPLETED", recorded.SendState)
	assert.Equal(t, []string{"task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING",
		"artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}, recorded.StreamEvents)
	assert.Equal(t, "TASK_STATE_COMPLETED", recorded.GetState)
	assert.Equal(t, "TASK_STATE_COMPLETED", recorded.RESTState)
	assert.Equal(t, []string{"send-1", "stream-2", "get-3"}, []string{recorded.SendID, recorded.StreamIDs[0], recorded.GetID})

	require.Len(t, rec.Exchanges, 5)
	var kinds []string
	for _, x := range rec.Exchanges {
		kinds = append(kinds, string(x.Kind)+" "+x.Method)
	}
	assert.Equal(t, []string{"card GET /.well-known/agent-card.json", "jsonrpc SendMessage",
		"jsonrpc SendStreamingMessage", "jsonrpc GetTask", "rest GET /rest/tasks/{id}"}, kinds)
	stream := rec.Exchanges[2]
	assert.Equal(t, record.EndEOF, stream.End)
	assert.Equal(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"}, stream.States())
	require.Len(t, stream.Events, 4)
	// The honest agent steps every 30ms: the recorded offsets show it.
	last := time.Duration(stream.Events[3].After)
	assert.GreaterOrEqual(t, last, 50*time.Millisecond, "offsets: %+v", stream.Events)
	assert.Contains(t, string(rec.Exchanges[0].Response), srv.URL(), "the recording keeps the agent's own card")

	// The recording survives a save/load in both formats.
	for _, format := range []string{"json", "yaml"} {
		var buf bytes.Buffer
		if format == "json" {
			require.NoError(t, rec.Save(&buf))
		} else {
			require.NoError(t, rec.SaveYAML(&buf))
			assert.NotEqual(t, byte('{'), buf.Bytes()[0])
		}
		loaded, err := record.Load(&buf)
		require.NoError(t, err, format)
		require.Len(t, loaded.Exchanges, len(rec.Exchanges))
		assert.Equal(t, stream.States(), loaded.Exchanges[2].States())
		assert.Equal(t, stream.Events[3].After, loaded.Exchanges[2].Events[3].After)

		rp, base := replayOf(t, loaded, replay.Options{Speed: 1})
		start := time.Now()
		replayed := newClient(t).run(base)
		took := time.Since(start)
		assert.Equal(t, recorded, replayed, format)
		// Recorded timing is kept (speed 1): the stream alone took `last`.
		assert.GreaterOrEqual(t, took, last, format)

		// The two journals agree: the replay keeps the server's journal, and
		// it journaled the same requests in the same order as the agent.
		// (Before, the replay kept a journal type of its own, with the index
		// of the recorded exchange each request was answered by.)
		names := func(entries []server.Entry) []string {
			var out []string
			for _, e := range entries {
				switch e.Kind {
				case server.EntryCard:
					out = append(out, "card")
				case server.EntryRequest:
					out = append(out, e.Method)
				}
			}
			return out
		}
		want := []string{"card", "SendMessage", "SendStreamingMessage", "GetTask", "GET /tasks/{id}"}
		assert.Equal(t, want, names(srv.Journal().Entries()))
		assert.Equal(t, want, names(rp.Journal()), format)
		// The sends were played by the engine as scripted timelines with
		// the recorded task ids, not replayed as bytes.
		var decisions []string
		for _, e := range rp.Journal() {
			if e.Kind == server.EntryDecision {
				decisions = append(decisions, e.TaskID+" "+e.Detail)
			}
		}
		assert.Equal(t, []string{recorded.SendTaskID + " new: replay of recorded exchange 1",
			recorded.StreamTaskID + " new: replay of recorded exchange 2"}, decisions, format)
	}
}

// TestProxyStreamsAsEventsArrive checks the proxy does not buffer a
// stream: the first event reaches the client long before the last one
// leaves the agent.
func TestProxyStreamsAsEventsArrive(t *testing.T) {
	t.Parallel()
	srv := honest(t, 150*time.Millisecond)
	up, err := url.Parse(srv.URL())
	require.NoError(t, err)
	proxy := record.NewProxy(up, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	c := newClient(t)
	start := time.Now()
	s, err := sse.Do(t.Context(), c.http, c.rpc(ps.URL+"/", "SendStreamingMessage", "1", message("x")))
	require.NoError(t, err)
	defer s.Close()
	var at []time.Duration
	for _, err := range s.Events() {
		require.NoError(t, err)
		at = append(at, time.Since(start))
	}
	require.Len(t, at, 4)
	// The agent spaces its events 150ms apart; a buffering proxy would
	// deliver them together at the end.
	assert.GreaterOrEqual(t, at[3]-at[0], 250*time.Millisecond, "events at %v", at)
}

func streamOnly(t *testing.T) *record.Recording {
	rec, _, _ := recordHonest(t, -1)
	return rec
}

func readStream(t *testing.T, base string, timeout time.Duration) ([]string, error) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	s, err := sse.Do(ctx, c.http, c.rpc(base+"/", "SendStreamingMessage", `"mine"`, message("x")))
	require.NoError(t, err)
	defer s.Close()
	var got []string
	for ev, err := range s.Events() {
		if err != nil {
			return got, err
		}
		var env struct {
			ID     json.RawMessage           `json:"id"`
			Result map[string]map[string]any `json:"result"`
		}
		require.NoError(t, json.Unmarshal(ev.Data, &env))
		assert.JSONEq(t, `"\"mine\""`, string(env.ID), "the JSON-RPC id is the request's")
		for k, v := range env.Result {
			if st := str(dig(v, "status", "state")); st != "" {
				k += ":" + st
			}
			got = append(got, k)
		}
	}
	return got, nil
}

func TestReplaySplice(t *testing.T) {
	t.Parallel()
	rec := streamOnly(t)
	all := []string{"task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}

	_, base := replayOf(t, rec, replay.Options{})
	got, err := readStream(t, base, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, all, got, "no splice: the stream as recorded")

	sp, err := replay.ParseSplice("1:end-stream")
	require.NoError(t, err)
	rp, base := replayOf(t, rec, replay.Options{Splice: sp})
	got, err = readStream(t, base, 5*time.Second)
	require.NoError(t, err, "the stream ends cleanly, without a terminal event")
	assert.Equal(t, all[:1], got)
	// The splice is a behavior of the engine: the journal names it on the
	// request and says the stream was closed by it (before, the replay's
	// own journal had one entry with the detail "spliced 1:end-stream";
	// the splice is now a behavior of the replay's registry).
	var req, closed server.Entry
	for _, e := range rp.Journal() {
		switch e.Kind {
		case server.EntryRequest:
			req = e
		case server.EntryStreamClose:
			closed = e
		}
	}
	assert.Equal(t, []string{"replay", "splice:at=1,fault=end-stream"}, req.Behaviors)
	assert.Equal(t, "closed by behavior", closed.Detail)

	sp, err = replay.ParseSplice("2:drop")
	require.NoError(t, err)
	_, base = replayOf(t, rec, replay.Options{Splice: sp})
	got, err = readStream(t, base, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{all[0], all[1], all[3]}, got)

	sp, err = replay.ParseSplice("3:hang")
	require.NoError(t, err)
	_, base = replayOf(t, rec, replay.Options{Splice: sp})
	got, err = readStream(t, base, time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the stream hangs until the client gives up")
	assert.Equal(t, all[:3], got)
}

// TestReplayStreamJournalSaysWritten: a stream the engine replays is
// journaled as what its client received. The replay writes the recorded
// rendering of each event the engine emits; every event was journaled both
// as a stream-event and as withheld by "replay", so ?kind=withheld listed
// every event of an intact stream.
func TestReplayStreamJournalSaysWritten(t *testing.T) {
	t.Parallel()
	rec := streamOnly(t)
	for _, splice := range []string{"", "2:drop"} {
		opts := replay.Options{}
		if splice != "" {
			sp, err := replay.ParseSplice(splice)
			require.NoError(t, err)
			opts.Splice = sp
		}
		rp, base := replayOf(t, rec, opts)
		got, err := readStream(t, base, 5*time.Second)
		require.NoError(t, err)
		var written int
		var withheld []server.Entry
		for _, e := range rp.Journal() {
			switch e.Kind {
			case server.EntryStreamEvent:
				written++
			case server.EntryWithheld:
				withheld = append(withheld, e)
			}
		}
		assert.Equal(t, len(got), written, "splice %q: a stream-event entry per event received", splice)
		if splice == "" {
			assert.Empty(t, withheld, "nothing was withheld from an intact stream")
			continue
		}
		require.Len(t, withheld, 1, "splice %q: only the dropped event is withheld", splice)
		assert.Equal(t, []string{"splice:at=2,fault=drop"}, withheld[0].Behaviors)
	}
}

// TestReplayUnrecordedAndRepeated: what the recording has no exchange for
// is answered by the engine from the tasks the replay played. Before, an
// unrecorded method was answered with MethodNotFound and any GetTask with
// the last recorded GetTask's bytes, whatever task it named; through the
// engine a task the replay never created is unknown (TaskNotFound), as it
// was to the recorded agent.
func TestReplayUnrecordedAndRepeated(t *testing.T) {
	t.Parallel()
	rec := streamOnly(t)
	rp, base := replayOf(t, rec, replay.Options{})
	c := newClient(t)

	res := c.do(c.rpc(base+"/", "CancelTask", "c1", map[string]any{"id": "x"}))
	assert.Equal(t, "c1", res["id"])
	assert.EqualValues(t, -32001, dig(res, "error", "code"))

	for _, id := range []string{"g1", "g2"} {
		res = c.do(c.rpc(base+"/", "GetTask", id, map[string]any{"id": "whatever"}))
		assert.Equal(t, id, res["id"])
		assert.EqualValues(t, -32001, dig(res, "error", "code"))
	}
	// The recorded stream's task, once replayed, is there to get, with the
	// recorded answer.
	got, err := readStream(t, base, 5*time.Second)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	streamTask := rec.Exchanges[2].States()
	assert.Equal(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"}, streamTask)
	var taskID string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryDecision && e.Op == "stream" {
			taskID = e.TaskID
		}
	}
	require.NotEmpty(t, taskID)
	res = c.do(c.rpc(base+"/", "GetTask", "g3", map[string]any{"id": taskID}))
	assert.Equal(t, "TASK_STATE_COMPLETED", str(dig(res, "result", "status", "state")))

	resp, err := c.http.Get(base + "/nowhere")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	// Control API: the server's journal over HTTP, reset rewinds.
	res = c.do(mustGet(t, base+"/_a2amock/journal?kind=request"))
	entries, _ := res["entries"].([]any)
	assert.Len(t, entries, 5)
	req, err := http.NewRequest(http.MethodPost, base+"/_a2amock/reset", nil)
	require.NoError(t, err)
	resp, err = c.http.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Empty(t, rp.Journal())
	got, err = readStream(t, base, 5*time.Second)
	require.NoError(t, err)
	assert.Len(t, got, 4, "after a reset the recorded stream plays again")
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryDecision {
			assert.Equal(t, taskID, e.TaskID, "with the recorded task id again")
		}
	}
}

func TestReplayControlToken(t *testing.T) {
	t.Parallel()
	rec := &record.Recording{Version: record.FormatVersion, Upstream: "http://x/"}
	_, base := replayOf(t, rec, replay.Options{ControlToken: "s3cret"})
	c := newClient(t)
	resp, err := c.http.Get(base + "/_a2amock/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	req := mustGet(t, base+"/_a2amock/healthz")
	req.Header.Set("Authorization", "Bearer s3cret")
	res := c.do(req)
	assert.Equal(t, "ok", res["status"])
}

func TestReplayRecordedStreamEnds(t *testing.T) {
	t.Parallel()
	data := json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}}`)
	mk := func(end record.StreamEnd, tail string) *record.Recording {
		return &record.Recording{Version: record.FormatVersion, Upstream: "http://up/", Exchanges: []record.Exchange{{
			Kind: record.KindJSONRPC, Method: "SendStreamingMessage", HTTPMethod: "POST", Path: "/", Status: 200,
			ContentType: "text/event-stream", Events: []record.Event{{Data: data}}, End: end, Tail: tail}}}
	}
	_, base := replayOf(t, mk(record.EndTruncated, "data: {\"jsonrpc\""), replay.Options{})
	got, err := readStreamAnyID(t, base, 5*time.Second)
	var te *sse.TruncatedError
	require.ErrorAs(t, err, &te, "a stream recorded as cut mid-frame is cut the same way")
	assert.Equal(t, 1, got)

	_, base = replayOf(t, mk(record.EndClientGone, ""), replay.Options{})
	got, err = readStreamAnyID(t, base, time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded, "a stream the client left open stays open")
	assert.Equal(t, 1, got)
}

func readStreamAnyID(t *testing.T, base string, timeout time.Duration) (int, error) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	s, err := sse.Do(ctx, c.http, c.rpc(base+"/", "SendStreamingMessage", "7", message("x")))
	require.NoError(t, err)
	defer s.Close()
	n := 0
	for _, err := range s.Events() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func TestProxyUpstreamDown(t *testing.T) {
	t.Parallel()
	// An upstream that drops every connection: a closed port could be
	// taken by another test's listener in the meantime.
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = c.Close()
		}
	}))
	defer dead.Close()
	up, err := url.Parse(dead.URL)
	require.NoError(t, err)
	proxy := record.NewProxy(up, record.ProxyOptions{})
	defer proxy.Close()
	ps := httptest.NewServer(proxy)
	defer ps.Close()
	resp, err := newClient(t).http.Get(ps.URL + "/.well-known/agent-card.json")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Empty(t, proxy.Recording().Exchanges, "a failed upstream call is not an answer of the agent")
}

// TestReplayControlRefusesCrossSite: like the mock's, the replay's control
// API refuses a reset sent by a page of another origin.
func TestReplayControlRefusesCrossSite(t *testing.T) {
	t.Parallel()
	rec := &record.Recording{Version: record.FormatVersion, Upstream: "http://x/"}
	_, base := replayOf(t, rec, replay.Options{})
	c := newClient(t)
	for _, tc := range []struct {
		hdr    map[string]string
		status int
	}{
		{map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{nil, http.StatusNoContent},
	} {
		req, err := http.NewRequest(http.MethodPost, base+"/_a2amock/reset", nil)
		require.NoError(t, err)
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.http.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, "%v", tc.hdr)
	}
}

// TestReplayV03REST: a recording of the v0.3 HTTP+JSON binding (without
// a card) replays what the agent answered, compact (from a file Save
// indented), journaled as v0.3. Its sends, in the v0.3 proto's JSON, are
// played by the engine (for a generated v0.3 card), which then answers a
// GetTask nobody recorded from the task it played; its stream, which
// opens on a status update, is replayed as the recorded bytes (one data:
// line per event) with that reason. It was once read as v1.0 HTTP+JSON
// and failed the v1.0 codec, then replayed as bytes throughout.
func TestReplayV03REST(t *testing.T) {
	t.Parallel()
	task := `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	ev := `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"final":true}}`
	rec := &record.Recording{Version: record.FormatVersion, Upstream: "http://127.0.0.1:1", Exchanges: []record.Exchange{{
		Kind: record.KindREST, Method: "POST /v0.3/v1/message:send", HTTPMethod: "POST", Path: "/v0.3/v1/message:send",
		Status: 200, ContentType: "application/json", Response: json.RawMessage(task),
	}, {
		Kind: record.KindREST, Method: "POST /v0.3/v1/message:stream", HTTPMethod: "POST", Path: "/v0.3/v1/message:stream",
		Status: 200, ContentType: "text/event-stream", Events: []record.Event{{Data: json.RawMessage(ev)}}, End: record.EndEOF,
	}}}
	var file bytes.Buffer
	require.NoError(t, rec.Save(&file))
	loaded, err := record.Load(&file)
	require.NoError(t, err)
	rp, base := replayOf(t, loaded, replay.Options{})
	hc := newClient(t).http
	post := func(path string) string {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"}]}}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "0.3")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
		return string(b)
	}
	assert.JSONEq(t, task, post("/v0.3/v1/message:send"))
	assert.NotContains(t, post("/v0.3/v1/message:send"), "\n ", "the answer as compact as recorded")
	assert.Contains(t, post("/v0.3/v1/message:stream"), "data: "+ev+"\n", "one data: line, as recorded")
	// No GetTask was recorded: the engine answers it from the task it played.
	resp, err := hc.Get(base + "/v0.3/v1/tasks/t1")
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", got)
	var played struct {
		ID, ContextID string
		Status        struct{ State string }
	}
	require.NoError(t, json.Unmarshal(got, &played), "%s", got)
	assert.Equal(t, "t1 c1 TASK_STATE_COMPLETED", played.ID+" "+played.ContextID+" "+played.Status.State, "%s", got)
	var details []string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryRequest {
			assert.Equal(t, wire.V03, e.Dialect, e.Method)
			assert.Equal(t, wire.BindingREST, e.Binding, e.Method)
			details = append(details, string(e.Op)+": "+e.Detail)
		}
	}
	assert.Equal(t, []string{"send: ", "send: ",
		"stream: recorded bytes of exchange 1: the answer does not start or continue a task the way the engine does",
		"get-task: "}, details, "the sends played by the engine; the stream, which opens on a status update, as recorded")
}
