package scenario_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/timeline"
)

// rig is one example file served on 127.0.0.1 and a raw JSON-RPC client of
// its own (so its idle connections go away with the test).
type rig struct {
	t      *testing.T
	url    string
	client *http.Client
	// srv is the server when the rig started one itself (serveExample).
	srv *server.Server
}

// serveExampleWith serves the example through testkit, with opts applied on
// top of the file (e.g. testkit.WithClock).
func serveExampleWith(t *testing.T, name string, opts ...testkit.Option) *rig {
	t.Helper()
	mock := testkit.Start(t, append([]testkit.Option{testkit.WithScenarioFile("../examples/incidents/" + name)}, opts...)...)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &rig{t: t, url: mock.URL, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

func serveExample(t *testing.T, name string) *rig {
	t.Helper()
	s, err := scenario.Load("../examples/incidents/" + name)
	require.NoError(t, err)
	cfg, err := s.Config(nil)
	require.NoError(t, err)
	srv, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	r := &rig{t: t, url: srv.URL(), client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, srv: srv}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		assert.NoError(t, srv.Close()) // a second Close is a no-op
	})
	return r
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (r *rig) post(agent, method string, params any, header http.Header) *http.Request {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(r.t, err)
	req, err := http.NewRequest(http.MethodPost, r.url+"/agents/"+agent+"/", bytes.NewReader(body))
	require.NoError(r.t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	return req
}

// rpc sends one JSON-RPC request and returns its result or its error.
func (r *rig) rpc(agent, method string, params any, header http.Header) (json.RawMessage, *rpcError) {
	r.t.Helper()
	resp, err := r.client.Do(r.post(agent, method, params, header))
	require.NoError(r.t, err)
	defer resp.Body.Close()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	require.NoError(r.t, json.NewDecoder(resp.Body).Decode(&env))
	return env.Result, env.Error
}

// task is the part of a v0.3 Task (or event) the tests look at.
type task struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	TaskID    string `json:"taskId"`
	ContextID string `json:"contextId"`
	Final     bool   `json:"final"`
	Status    struct {
		State   string `json:"state"`
		Message *struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"status"`
	History   []json.RawMessage `json:"history"`
	Artifacts []struct {
		ArtifactID string `json:"artifactId"`
		Parts      []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"artifacts"`
	Artifact *struct {
		ArtifactID string `json:"artifactId"`
	} `json:"artifact"`
}

var msgSeq atomic.Int64

// message is a v0.3 message/send params object.
func message(text, taskID string, metadata map[string]any) map[string]any {
	m := map[string]any{"kind": "message", "messageId": fmt.Sprintf("m-%d", msgSeq.Add(1)), "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": text}}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	if metadata != nil {
		m["metadata"] = metadata
	}
	return map[string]any{"message": m}
}

func (r *rig) send(agent string, params map[string]any) task {
	r.t.Helper()
	res, e := r.rpc(agent, "message/send", params, nil)
	require.Nil(r.t, e, "message/send: %+v", e)
	var tk task
	require.NoError(r.t, json.Unmarshal(res, &tk))
	require.Equal(r.t, "task", tk.Kind, string(res))
	return tk
}

func (r *rig) get(agent, id string) task {
	r.t.Helper()
	res, e := r.rpc(agent, "tasks/get", map[string]any{"id": id}, nil)
	require.Nil(r.t, e, "tasks/get: %+v", e)
	var tk task
	require.NoError(r.t, json.Unmarshal(res, &tk))
	return tk
}

// waitState polls tasks/get until the task is in state or the deadline
// passes, and returns the last snapshot.
func (r *rig) waitState(agent, id, state string) task {
	r.t.Helper()
	var tk task
	require.Eventually(r.t, func() bool {
		tk = r.get(agent, id)
		return tk.Status.State == state
	}, 5*time.Second, 5*time.Millisecond, "task %s never reached %s", id, state)
	return tk
}

// stream opens an SSE stream (message/stream, tasks/resubscribe).
func (r *rig) stream(ctx context.Context, agent, method string, params any) *sse.Stream {
	r.t.Helper()
	st, err := sse.Do(ctx, r.client, r.post(agent, method, params, nil))
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = st.Close() })
	return st
}

// event decodes one SSE frame's JSON-RPC result.
func event(t *testing.T, ev sse.Event) task {
	t.Helper()
	var env struct {
		Result task      `json:"result"`
		Error  *rpcError `json:"error"`
	}
	require.NoError(t, json.Unmarshal(ev.Data, &env), string(ev.Data))
	require.Nil(t, env.Error)
	return env.Result
}

func states(evs []task) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind+":"+e.Status.State)
	}
	return out
}

// driveClock plays the part of time for a test on a fake clock: whenever a
// timer due within d waits (a step, not a far keep-alive), it advances the
// clock to it. stop ends the driver and waits for it.
func driveClock(t *testing.T, clk *timeline.FakeClock, d time.Duration) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for clk.BlockUntilDue(ctx, d) == nil {
			clk.AdvanceToNext()
		}
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// waitStreamEnd waits until the server has journaled the end of the stream
// of task id (which it does after the stream released its keep-alive).
func (r *rig) waitStreamEnd(id string) {
	r.t.Helper()
	require.Eventually(r.t, func() bool {
		entries, err := testkit.FetchJournalContext(context.Background(), r.client, r.url)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if e.Kind == server.EntryStreamClose && e.TaskID == id {
				return true
			}
		}
		return false
	}, 5*time.Second, time.Millisecond, "the stream of task %s never ended", id)
}

// settledForEver reports, on a fake clock whose driver has stopped, that
// nothing is scheduled any more once the server has released what it no
// longer waits for: no state can ever change again.
func settledForEver(t *testing.T, clk *timeline.FakeClock) bool {
	t.Helper()
	require.Eventually(t, func() bool { return clk.Waiters() == 0 }, 5*time.Second, time.Millisecond,
		"timers still pending: %d", clk.Waiters())
	return !clk.AdvanceToNext()
}

func TestIncidentThreeWorkers(t *testing.T) {
	t.Parallel()
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := serveExampleWith(t, "three-worker-incident.yaml", testkit.WithClock(clk))
	stopClock := driveClock(t, clk, time.Second)
	intake := map[string]any{"skillId": "intake"}

	// Workers 1 and 2 honour the lifecycle their cards declare.
	for _, w := range []string{"worker-1", "worker-2"} {
		tk := r.send(w, message("monthly report", "", intake))
		parked := r.waitState(w, tk.ID, "input-required")
		require.NotNil(t, parked.Status.Message)
		assert.Equal(t, "Which account should the report cover?", parked.Status.Message.Parts[0].Text)
		cont := r.send(w, message("account 42", tk.ID, intake))
		assert.Equal(t, tk.ID, cont.ID, "%s continues the same task", w)
		r.waitState(w, tk.ID, "completed")
	}

	// Worker 3 stops at working and answers the follow-up with a new task.
	tk := r.send("worker-3", message("monthly report", "", intake))
	r.waitState("worker-3", tk.ID, "working")
	stopClock()
	assert.True(t, settledForEver(t, clk), "nothing is scheduled: input-required can never come")
	assert.Equal(t, "working", r.get("worker-3", tk.ID).Status.State, "never input-required")
	driveClock(t, clk, time.Second)
	cont := r.send("worker-3", message("account 42", tk.ID, intake))
	assert.NotEqual(t, tk.ID, cont.ID, "a new task id answers the continuation")
	assert.Equal(t, tk.ContextID, cont.ContextID)
	orig := r.get("worker-3", tk.ID)
	assert.Equal(t, "working", orig.Status.State, "the original task is orphaned in working")
	assert.Len(t, orig.History, 1, "the follow-up never reached the original task")

	// The root cause: messages that carry metadata.tenant are served honestly.
	tenant := map[string]any{"skillId": "intake", "tenant": "acme"}
	tk2 := r.send("worker-3", message("monthly report", "", tenant))
	r.waitState("worker-3", tk2.ID, "input-required")
	cont2 := r.send("worker-3", message("account 42", tk2.ID, tenant))
	assert.Equal(t, tk2.ID, cont2.ID)
}

func TestIncidentThreeWorkersScripted(t *testing.T) {
	t.Parallel()
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := serveExampleWith(t, "three-worker-incident-scripted.yaml", testkit.WithClock(clk))
	stopClock := driveClock(t, clk, time.Second)
	md := map[string]any{"skillId": "intake"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := r.stream(ctx, "worker-3", "message/stream", message("monthly report", "", md))
	var evs []task
	for ev, err := range st.Events() {
		require.NoError(t, err)
		evs = append(evs, event(t, ev))
		if len(evs) == 2 {
			break
		}
	}
	require.Len(t, evs, 2)
	assert.Equal(t, []string{"task:submitted", "status-update:working"}, states(evs))
	assert.False(t, evs[1].Final, "final: false on working, as in the field note")
	id := evs[0].ID
	require.NoError(t, st.Close())

	cont := r.send("worker-3", message("account 42", id, md))
	assert.NotEqual(t, id, cont.ID, "answer: new-task")
	assert.Equal(t, evs[0].ContextID, cont.ContextID)
	r.waitState("worker-3", cont.ID, "working")
	// The closed stream may still hold its keep-alive (it re-arms it after
	// each item it takes): settled means once it has ended.
	r.waitStreamEnd(id)
	stopClock()
	assert.True(t, settledForEver(t, clk), "both tasks stopped: nothing is scheduled")
	assert.Equal(t, "working", r.get("worker-3", id).Status.State)
	assert.Equal(t, "working", r.get("worker-3", cont.ID).Status.State, "action: stop")
}

func TestIncidentStreamClosedWithoutTerminal(t *testing.T) {
	t.Parallel()
	r := serveExample(t, "stream-closed-without-terminal.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := r.stream(ctx, "reporter", "message/stream", message("weekly", "", map[string]any{"skillId": "report"}))
	var evs []task
	for ev, err := range st.Events() {
		require.NoError(t, err, "the stream ends cleanly, not truncated")
		evs = append(evs, event(t, ev))
	}
	require.Len(t, evs, 3, "%v", states(evs))
	assert.Equal(t, "task:submitted", states(evs)[0])
	assert.Equal(t, "status-update:working", states(evs)[1])
	assert.Equal(t, "artifact-update", evs[2].Kind)
	for _, e := range evs {
		assert.False(t, e.Final, "no event says final")
	}
	// The task goes on without the stream; polling reveals the outcome.
	done := r.waitState("reporter", evs[0].ID, "completed")
	require.Len(t, done.Artifacts, 1)
	require.Len(t, done.Artifacts[0].Parts, 2)
	assert.Equal(t, "Revenue: 42", done.Artifacts[0].Parts[0].Text)
	assert.Equal(t, "; Costs: 17", done.Artifacts[0].Parts[1].Text)
}

// On a fake clock the orphaned task is shown to stay working for ever, not
// merely for as long as a test cares to sleep: once the client has gone,
// nothing is scheduled at all.
func TestIncidentOrphanedWorkingAfterDisconnect(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	clk := timeline.NewFakeClock(t0)
	r := serveExampleWith(t, "orphaned-working-after-disconnect.yaml", testkit.WithClock(clk))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := r.stream(ctx, "cruncher", "message/stream", message("crunch", "", map[string]any{"skillId": "crunch"}))
	var id string
	for ev, err := range st.Events() {
		require.NoError(t, err)
		e := event(t, ev)
		if e.Kind == "task" {
			id = e.ID
			// The player waits 5ms for working, the stream for its keep-alive.
			require.NoError(t, clk.BlockUntilContext(ctx, 2))
			require.True(t, clk.AdvanceToNext())
			assert.Equal(t, 5*time.Millisecond, clk.Now().Sub(t0), "the next thing due is the working step")
		}
		if e.Status.State == "working" {
			break
		}
	}
	require.NotEmpty(t, id)
	require.NoError(t, st.Close()) // the client goes away mid-task

	// The stream has ended once its close is journaled (after it stopped
	// its keep-alive). Waiting for no timer at all was not enough: the
	// stream re-arms its keep-alive after each item it takes, the player's
	// end included, so the count could read 0 for a moment and the stream
	// then hold a timer into the re-attach below (1 failure in 200 runs).
	r.waitStreamEnd(id)
	assert.Zero(t, clk.Waiters(), "the closed stream releases its keep-alive")
	assert.False(t, clk.AdvanceToNext(), "nothing is scheduled: the task can never move again")
	tk := r.get("cruncher", id)
	assert.Equal(t, "working", tk.Status.State, "nobody ends or collects the task")
	require.NotNil(t, tk.Status.Message)
	assert.Equal(t, "Crunching", tk.Status.Message.Parts[0].Text)

	// Re-attaching opens on the same working task and nothing follows: the
	// only timer is the stream's keep-alive.
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	rs := r.stream(rctx, "cruncher", "tasks/resubscribe", map[string]any{"id": id})
	var got []task
	var last error
	for ev, err := range rs.Events() {
		if err != nil {
			last = err
			break
		}
		got = append(got, event(t, ev))
		require.NoError(t, clk.BlockUntilContext(ctx, 1))
		assert.Equal(t, 1, clk.Waiters(), "only the keep-alive waits")
		rcancel()
	}
	require.Len(t, got, 1)
	assert.Equal(t, "task:working", states(got)[0])
	assert.ErrorIs(t, last, context.Canceled, "the stream stayed open with nothing to say")
}

func TestIncidentResubscribeLosesEvents(t *testing.T) {
	t.Parallel()
	r := serveExample(t, "resubscribe-loses-events.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := r.stream(ctx, "writer", "message/stream", message("memo", "", map[string]any{"skillId": "draft"}))
	var id string
	for ev, err := range st.Events() {
		require.NoError(t, err)
		e := event(t, ev)
		if e.Kind == "task" {
			id = e.ID
		}
		if e.Status.State == "working" {
			break
		}
	}
	require.NotEmpty(t, id)
	require.NoError(t, st.Close())

	// While detached, the draft artifact arrives.
	require.Eventually(t, func() bool { return len(r.get("writer", id).Artifacts) == 1 }, 5*time.Second, 5*time.Millisecond)

	rs := r.stream(ctx, "writer", "tasks/resubscribe", map[string]any{"id": id})
	var got []task
	for ev, err := range rs.Events() {
		require.NoError(t, err)
		got = append(got, event(t, ev))
	}
	require.NotEmpty(t, got)
	snap := got[0]
	assert.Equal(t, "task", snap.Kind)
	assert.Equal(t, "submitted", snap.Status.State, "a stale snapshot")
	assert.Empty(t, snap.Artifacts, "the draft made while detached is missing")
	// The first live event (working "Polishing") is lost; the stream still
	// ends with the terminal event.
	for _, e := range got[1:] {
		assert.NotEqual(t, "status-update:working", e.Kind+":"+e.Status.State, "the first live event is dropped")
	}
	assert.Equal(t, "status-update:completed", states(got)[len(got)-1])
	truth := r.get("writer", id)
	assert.Equal(t, "completed", truth.Status.State)
	require.Len(t, truth.Artifacts, 1)
	assert.Len(t, truth.Artifacts[0].Parts, 2, "GetTask tells the truth")
}

func TestIncidentPushOnce(t *testing.T) {
	t.Parallel()
	if _, ok := behaviors.Catalogue().Lookup("push-once"); !ok {
		// Push delivery is built by another issue; until push-once is
		// registered the file must fail to load for exactly that reason.
		s, err := scenario.Load("../examples/incidents/push-notification-once.yaml")
		require.NoError(t, err)
		_, err = s.Config(nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown behavior "push-once"`)
		t.Log("push-once is not registered yet: the file fails to load, as asserted")
		return
	}
	var mu sync.Mutex
	var bodies []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer hook.Close()
	r := serveExample(t, "push-notification-once.yaml")
	params := message("export", "", map[string]any{"skillId": "export"})
	params["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": hook.URL + "/webhook", "token": "tok"}}
	tk := r.send("notifier", params)
	r.waitState("notifier", tk.ID, "completed")
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(bodies) > 0 }, 10*time.Second, time.Millisecond,
		"the first notification never came")
	// Every notification of the task was queued when its event was, before
	// it completed; Close returns once the push queue has been worked off
	// (what it cuts short is still journaled as attempted), so no late
	// notification can come after it (a 200ms sleep only made that likely).
	require.NoError(t, r.srv.Close())
	attempts := 0
	for _, e := range r.srv.Journal().Entries() {
		if e.Kind == server.EntryPush && e.TaskID == tk.ID {
			attempts++
		}
	}
	assert.Equal(t, 1, attempts, "one notification attempted")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 1, "one notification, then silence: %v", bodies)
	assert.Contains(t, bodies[0], tk.ID)
	assert.NotContains(t, bodies[0], "completed", "the outcome is never pushed")
}

func TestIncidentV1ClientV03Server(t *testing.T) {
	t.Parallel()
	r := serveExample(t, "v1-client-v03-server.yaml")
	resp, err := r.client.Get(r.url + "/agents/legacy/.well-known/agent-card.json")
	require.NoError(t, err)
	var card struct {
		ProtocolVersion     string `json:"protocolVersion"`
		SupportedInterfaces []struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	_ = resp.Body.Close()
	require.NotEmpty(t, card.SupportedInterfaces)
	assert.Equal(t, "1.0", card.SupportedInterfaces[0].ProtocolVersion, "the card promises 1.0")

	v1 := map[string]any{"message": map[string]any{"messageId": "m-v1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hola"}}}}
	_, e := r.rpc("legacy", "SendMessage", v1, http.Header{"A2a-Version": {"1.0"}})
	require.NotNil(t, e)
	assert.Equal(t, -32601, e.Code)
	assert.Equal(t, "Method not found: SendMessage", e.Message)

	tk := r.send("legacy", message("hola", "", nil))
	assert.NotEmpty(t, tk.ID, "the v0.3 method works")
}

func TestIncidentTaskMintedForUnknownID(t *testing.T) {
	t.Parallel()
	r := serveExample(t, "task-minted-for-unknown-id.yaml")
	_, e := r.rpc("honest", "message/send", message("as I said", "task-from-yesterday", nil), nil)
	require.NotNil(t, e, "the honest agent does not know the task")
	assert.Equal(t, -32001, e.Code)

	tk := r.send("forgetful", message("as I said", "task-from-yesterday", nil))
	assert.Equal(t, "task-from-yesterday", tk.ID, "a task minted under the client's id")
	assert.Len(t, tk.History, 1, "with none of the earlier turns")
	assert.Contains(t, []string{"submitted", "working", "completed"}, tk.Status.State, "a live task, not an error")
}

// A timeline matched by message text plays for that text only; other
// messages get the honest lifecycle.
func TestTextMatchedTimeline(t *testing.T) {
	t.Parallel()
	s, err := scenario.Parse([]byte(`
server: {stepDelay: 1ms}
agents:
  - name: desk
    card:
      dialect: "0.3"
      skills: [{id: help}]
    timelines:
      - text: "(?i)refund"
        steps:
          - state: submitted
          - state: rejected
            message: Refunds are handled by a human.
`), "text.yaml")
	require.NoError(t, err)
	cfg, err := s.Config(nil)
	require.NoError(t, err)
	srv, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	r := &rig{t: t, url: srv.URL(), client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		assert.NoError(t, srv.Close())
	})
	refund := r.waitState("desk", r.send("desk", message("I want a REFUND", "", nil)).ID, "rejected")
	require.NotNil(t, refund.Status.Message)
	assert.Equal(t, "Refunds are handled by a human.", refund.Status.Message.Parts[0].Text)
	other := r.send("desk", message("where is my parcel", "", nil))
	r.waitState("desk", other.ID, "completed")
}
