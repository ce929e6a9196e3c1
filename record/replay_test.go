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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// recT records an assertion's failures instead of failing the test.
type recT struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recT) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

// proxied records whatever a test does through a proxy to upstream.
func proxied(t *testing.T, upstream string) (*record.Proxy, string) {
	up, err := url.Parse(upstream)
	require.NoError(t, err)
	proxy := record.NewProxy(up, record.ProxyOptions{})
	t.Cleanup(proxy.Close)
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	return proxy, ps.URL
}

// send posts a v1.0 SendMessage and returns the task it answered.
func (c *client) send(base, msgID, taskID, contextID string, config map[string]any) map[string]any {
	m := map[string]any{"messageId": msgID, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello " + msgID}}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	if contextID != "" {
		m["contextId"] = contextID
	}
	params := map[string]any{"message": m}
	if config != nil {
		params["configuration"] = config
	}
	res := c.do(c.rpc(base+"/", "SendMessage", msgID, params))
	task, _ := dig(res, "result", "task").(map[string]any)
	require.NotNil(c.t, task, "%v", res)
	return task
}

// conversation is a client that answers its first task's question with the
// taskId, then answers the second one with the contextId only (a new task
// each time), leaving two tasks waiting for input.
func conversation(c *client, base string) {
	first := c.send(base, "m1", "", "", nil)
	c.send(base, "m2", str(first["id"]), str(first["contextId"]), nil)
	second := c.send(base, "m3", "", "", nil)
	c.send(base, "m4", "", str(second["contextId"]), nil)
}

// TestReplayIsJudgedByTheSameAssertions: a recorded conversation replays
// through the engine, so the testkit's assertions, reading the replay's
// journal over the same control API as a mock's, judge the replayed client
// as they judged it live: the continuation that carried its taskId passes,
// the one that did not fails naming the same task, and the two tasks left
// waiting are orphans in both.
func TestReplayIsJudgedByTheSameAssertions(t *testing.T) {
	t.Parallel()
	live := testkit.Start(t, testkit.WithSeed(5), testkit.WithStepDelay(-1), testkit.WithCardChange("agent", func(c *cards.Card) {
		for i := range c.Skills {
			c.Skills[i].NeedsInput = true
		}
	}))
	proxy, via := proxied(t, live.URL)
	conversation(newClient(t), via)
	rec := proxy.Recording()
	require.Len(t, rec.Exchanges, 4)

	judge := func(journal []server.Entry) (continuation, orphans string) {
		rt := &recT{}
		assert.False(t, testkit.AssertContinuationCarriesTaskID(rt, journal))
		continuation = rt.text()
		rt = &recT{}
		assert.False(t, testkit.AssertNoOrphans(rt, journal))
		return continuation, rt.text()
	}
	liveCont, liveOrphans := judge(live.Journal())

	_, base := replayOf(t, rec, replay.Options{})
	conversation(newClient(t), base)
	journal := testkit.FetchJournal(t, base)
	replayCont, replayOrphans := judge(journal)

	var tasks []string
	for _, e := range journal {
		if e.Kind == server.EntryDecision {
			tasks = append(tasks, e.TaskID)
		}
	}
	require.Len(t, tasks, 4)
	// The replay kept the recorded task ids, so the verdicts name the same
	// tasks, with the same words.
	for _, msg := range []string{liveCont, replayCont} {
		assert.Contains(t, msg, `task "`+tasks[2]+`": its input-required was answered without its taskId`)
		assert.Contains(t, msg, "observed:   no taskId")
	}
	for _, msg := range []string{liveOrphans, replayOrphans} {
		assert.Contains(t, msg, "2 orphaned task(s)")
		assert.Contains(t, msg, tasks[2])
		assert.Contains(t, msg, tasks[3])
		assert.NotContains(t, msg, tasks[0], "the task continued with its taskId completed")
	}
	assert.Equal(t, tasks[0], tasks[1], "the continuation continued the recorded task")
}

// TestReplayWithRegistryBehaviors: faults from the behaviors registry act
// on a replay as on a mock, and the journal names them.
func TestReplayWithRegistryBehaviors(t *testing.T) {
	t.Parallel()
	rec := streamOnly(t)
	b, err := behaviors.Catalogue().Parse("stream-no-final")
	require.NoError(t, err)
	rp, base := replayOf(t, rec, replay.Options{Behaviors: []behaviors.Behavior{b}})
	got, err := readStream(t, base, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate"}, got,
		"v1.0: the terminal event is withheld and the stream closed")
	var acted []string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryRequest && e.Op == wire.OpStream {
			acted = e.Behaviors
		}
	}
	assert.Equal(t, []string{"replay", "stream-no-final"}, acted)
}

// TestReplayPlaysObservedTimeline: an agent that answered at once with a
// task still running, and that a client then polled to completion, is
// replayed as a timeline with the observed timings: the send answers at
// once with the state recorded, and polls see the task complete no
// earlier than it did.
func TestReplayPlaysObservedTimeline(t *testing.T) {
	t.Parallel()
	srv := honest(t, 80*time.Millisecond)
	proxy, via := proxied(t, srv.URL())
	c := newClient(t)
	poll := func(base, id string) (string, time.Duration) {
		start := time.Now()
		for {
			res := c.do(c.rpc(base+"/", "GetTask", "g", map[string]any{"id": id}))
			st := str(dig(res, "result", "status", "state"))
			if st == "TASK_STATE_COMPLETED" || time.Since(start) > 10*time.Second {
				return st, time.Since(start)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	task := c.send(via, "m1", "", "", map[string]any{"returnImmediately": true})
	recordedState := str(dig(task, "status", "state"))
	require.NotEqual(t, "TASK_STATE_COMPLETED", recordedState)
	st, _ := poll(via, str(task["id"]))
	require.Equal(t, "TASK_STATE_COMPLETED", st)
	rec := proxy.Recording()

	// When the recorded client first saw the task completed, from the
	// answer to its send.
	var gap time.Duration
	for _, x := range rec.Exchanges {
		if x.Method == "GetTask" && slices.Contains(x.States(), "TASK_STATE_COMPLETED") {
			gap = time.Duration(x.At+x.HeadersAfter) - time.Duration(rec.Exchanges[0].At+rec.Exchanges[0].HeadersAfter)
			break
		}
	}
	require.Positive(t, gap)

	rp, base := replayOf(t, rec, replay.Options{Speed: 1})
	// The client asks to block this time: the recorded agent answered at
	// once, and so does its replay.
	again := c.send(base, "m1", "", "", nil)
	assert.Equal(t, task["id"], again["id"], "the recorded task id")
	assert.Equal(t, recordedState, str(dig(again, "status", "state")))
	st, _ = poll(base, str(task["id"]))
	assert.Equal(t, "TASK_STATE_COMPLETED", st)
	// The engine completed the task no earlier after its answer than the
	// agent was seen to (the journal's times; 30ms for the time between the
	// task's start and the journaling of the answer).
	var answered, completed time.Time
	for _, e := range rp.Journal() {
		switch {
		case e.Kind == server.EntryResponse && e.Op == wire.OpSend:
			answered = e.Time
			assert.Equal(t, recordedState, "TASK_STATE_"+strings.ToUpper(strings.ReplaceAll(string(e.State), "-", "_")))
		case e.Kind == server.EntryEvent && e.State == wire.StateCompleted && completed.IsZero():
			completed = e.Time
		}
	}
	require.False(t, answered.IsZero() || completed.IsZero())
	assert.GreaterOrEqual(t, completed.Sub(answered), gap-30*time.Millisecond, "completed at the observed time, not at once")
}

// TestReplayRawWhereTheModelCannot: an answer the model cannot carry (a
// member it does not know) is replayed as the recorded bytes, and the
// journal says so, with what the answer reported.
func TestReplayRawWhereTheModelCannot(t *testing.T) {
	t.Parallel()
	answer := `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"vendorExtra":true}}}`
	rec := &record.Recording{Version: record.FormatVersion, Upstream: "http://up/", Exchanges: []record.Exchange{{
		Kind: record.KindJSONRPC, Method: "SendMessage", HTTPMethod: "POST", Path: "/", Status: 200,
		ContentType: "application/json", Response: json.RawMessage(answer)}}}
	rp, base := replayOf(t, rec, replay.Options{})
	c := newClient(t)
	req := c.rpc(base+"/", "SendMessage", "mine", message("x"))
	resp, err := c.http.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.JSONEq(t, strings.Replace(answer, `"id":1`, `"id":"mine"`, 1), string(b), "the recorded bytes, with the request's id")

	j := rp.Journal()
	require.Len(t, j, 2)
	assert.Equal(t, server.EntryRequest, j[0].Kind)
	assert.Contains(t, j[0].Detail, "recorded bytes of exchange 0")
	assert.Contains(t, j[0].Detail, "carries what the model does not")
	assert.Equal(t, "m-x", j[0].MessageID)
	assert.Equal(t, server.EntryResponse, j[1].Kind)
	assert.Equal(t, "t1", j[1].TaskID)
	assert.Equal(t, wire.StateCompleted, j[1].State)
	assert.Equal(t, j[0].Request, j[1].Request)
}

// TestReplayRecordedErrorThroughEngine: a recorded JSON-RPC error is the
// engine's decision to reject, journaled with its code.
func TestReplayRecordedErrorThroughEngine(t *testing.T) {
	t.Parallel()
	answer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no such skill"}}`
	rec := &record.Recording{Version: record.FormatVersion, Upstream: "http://up/", Exchanges: []record.Exchange{{
		Kind: record.KindJSONRPC, Method: "SendMessage", HTTPMethod: "POST", Path: "/", Status: 200,
		ContentType: "application/json", Response: json.RawMessage(answer)}}}
	rp, base := replayOf(t, rec, replay.Options{})
	c := newClient(t)
	res := c.do(c.rpc(base+"/", "SendMessage", "e", message("x")))
	assert.EqualValues(t, -32602, dig(res, "error", "code"))
	assert.Equal(t, "no such skill", dig(res, "error", "message"))
	var kinds []string
	for _, e := range rp.Journal() {
		kinds = append(kinds, string(e.Kind))
		if e.Kind == server.EntryDecision || e.Kind == server.EntryResponse {
			assert.Equal(t, -32602, e.ErrorCode)
		}
	}
	assert.Equal(t, []string{"request", "decision", "response"}, kinds)
}

// TestReplayControlIsTheServers: the replay's control API is the server's
// (agents, behaviors), so behaviors can be set on a running replay.
func TestReplayControlIsTheServers(t *testing.T) {
	t.Parallel()
	rec := streamOnly(t)
	_, base := replayOf(t, rec, replay.Options{})
	body, err := json.Marshal(map[string]any{"agent": replay.AgentName, "behaviors": []string{"stream-hang"}})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPut, base+"/_a2amock/behaviors", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := newClient(t).http.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, err := readStream(t, base, time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded, "stream-hang holds the replayed stream open")
	assert.Len(t, got, 4)
}

// TestReplayV03ThroughEngine: a v0.3 conversation (message/send, then
// message/stream) replays through the engine too, byte for byte as the
// client saw it.
func TestReplayV03ThroughEngine(t *testing.T) {
	t.Parallel()
	srv := honest(t, -1)
	proxy, via := proxied(t, srv.URL())
	c := newClient(t)
	v03 := func(base, method, id string) *http.Request {
		req := c.rpc(base+"/", method, id, map[string]any{"message": map[string]any{"messageId": "m-" + id, "role": "user", "kind": "message",
			"parts": []any{map[string]any{"kind": "text", "text": "hi"}}}})
		req.Header.Del("A2A-Version")
		return req
	}
	stream := func(base string) []string {
		s, err := sse.Do(t.Context(), c.http, v03(base, "message/stream", "2"))
		require.NoError(t, err)
		defer s.Close()
		var out []string
		for ev, err := range s.Events() {
			require.NoError(t, err)
			out = append(out, string(ev.Data))
		}
		return out
	}
	sent := c.do(v03(via, "message/send", "1"))
	streamed := stream(via)
	rec := proxy.Recording()
	require.Len(t, rec.Exchanges, 2)

	rp, base := replayOf(t, rec, replay.Options{})
	assert.Equal(t, sent, c.do(v03(base, "message/send", "1")))
	assert.Equal(t, streamed, stream(base))
	var decisions int
	for _, e := range rp.Journal() {
		assert.NotContains(t, e.Detail, "recorded bytes", "%+v", e)
		if e.Kind == server.EntryDecision {
			decisions++
			assert.Equal(t, wire.V03, e.Dialect)
		}
	}
	assert.Equal(t, 2, decisions)
}

// TestReplayRawStreamJournal: a stream replayed as recorded bytes is
// journaled as the engine journals its streams: the recorded agent's
// events, the events the client received, one a splice withheld and the
// frame the recording cut.
func TestReplayRawStreamJournal(t *testing.T) {
	t.Parallel()
	ev := func(state string) record.Event {
		return record.Event{Data: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"` + state + `"}}}}`)}
	}
	rec := &record.Recording{Version: record.FormatVersion, Upstream: "http://up/", Exchanges: []record.Exchange{{
		Kind: record.KindJSONRPC, Method: "SendStreamingMessage", HTTPMethod: "POST", Path: "/", Status: 200,
		ContentType: "text/event-stream", Events: []record.Event{ev("TASK_STATE_WORKING"), ev("TASK_STATE_WORKING"), ev("TASK_STATE_COMPLETED")},
		End: record.EndTruncated, Tail: "data: {"}}}
	sp, err := replay.ParseSplice("1:drop")
	require.NoError(t, err)
	rp, base := replayOf(t, rec, replay.Options{Splice: sp})
	n, err := readStreamAnyID(t, base, 5*time.Second)
	var te *sse.TruncatedError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 2, n)
	var kinds []string
	for _, e := range rp.Journal() {
		k := string(e.Kind)
		if e.State != "" {
			k += " " + string(e.State)
		}
		kinds = append(kinds, k)
		if e.Kind == server.EntryWithheld && e.State != "" {
			assert.Equal(t, []string{"splice:at=1,fault=drop"}, e.Behaviors)
		}
	}
	assert.Equal(t, []string{"request", "response", "event working", "stream-event working", "event working", "withheld working",
		"event completed", "stream-event completed", "withheld", "stream-close"}, kinds)
}
