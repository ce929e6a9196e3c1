package behaviors_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// lifecycleCard has a skill that completes at once ("quick", the default
// skill) and one that parks its task in input-required ("ask"), the shape of
// the field note's agent.
func lifecycleCard() *cards.Card {
	return &cards.Card{
		Name: "a", Description: "lifecycle test agent", Version: "1.0.0", Dialect: wire.V10,
		Capabilities:       cards.Capabilities{Streaming: true, StateTransitionHistory: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{
			{ID: "quick", Name: "Quick", Description: "answers at once", Tags: []string{"t"}, EstimatedDuration: 2 * time.Second},
			{ID: "ask", Name: "Ask", Description: "asks for more input", Tags: []string{"t"}, NeedsInput: true,
				InputPrompt: "Which one?", EstimatedDuration: 3 * time.Second},
		},
	}
}

// newLifecycleRig is a rig (see rig_test.go) whose agent "a" has
// lifecycleCard; edit adjusts the config before the server is built.
func newLifecycleRig(t *testing.T, edit func(*server.Config), bs ...behaviors.Behavior) *rig {
	t.Helper()
	cfg := server.Config{
		Seed:              7,
		StepDelay:         -1,
		KeepAliveInterval: 20 * time.Millisecond,
		Agents:            []server.AgentConfig{{Name: "a", Card: lifecycleCard(), Behaviors: bs}},
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	r := &rig{t: t, srv: srv, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, base: srv.URL() + "/agents/a"}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		require.NoError(t, srv.Close())
	})
	return r
}

// seenTask is what a client reads from a task in an answer.
type seenTask struct {
	ID, ContextID, State string
	History, Artifacts   int
	StatusMessage        string
}

func decodeTask(t *testing.T, raw json.RawMessage) seenTask {
	t.Helper()
	var w struct {
		ID        string `json:"id"`
		ContextID string `json:"contextId"`
		Status    struct {
			State   string `json:"state"`
			Message *struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"status"`
		History   []json.RawMessage `json:"history"`
		Artifacts []json.RawMessage `json:"artifacts"`
	}
	require.NoError(t, json.Unmarshal(raw, &w), "task %s", raw)
	st := w.Status.State
	if s, ok := v10States[st]; ok {
		st = s
	}
	out := seenTask{ID: w.ID, ContextID: w.ContextID, State: st, History: len(w.History), Artifacts: len(w.Artifacts)}
	if m := w.Status.Message; m != nil && len(m.Parts) > 0 {
		out.StatusMessage = m.Parts[0].Text
	}
	return out
}

// answer is a unary call's outcome as a client sees it: a task, or an error
// code (0 when none).
type answer struct {
	Task seenTask
	Code int
}

func (r *rig) call(d wire.Dialect, op wire.Op, params any) answer {
	r.t.Helper()
	name := method(d, op)
	if op == wire.OpCancelTask {
		name = map[wire.Dialect]string{wire.V10: "CancelTask", wire.V03: "tasks/cancel"}[d]
	}
	if op == wire.OpListTasks {
		name = "ListTasks"
	}
	rep := r.rpc(name, params)
	if rep.Error != nil {
		return answer{Code: rep.Error.Code}
	}
	raw := rep.Result
	if op == wire.OpSend {
		var w map[string]json.RawMessage
		require.NoError(r.t, json.Unmarshal(raw, &w))
		if inner, ok := w["task"]; ok && d == wire.V10 {
			raw = inner
		}
	}
	if op == wire.OpListTasks {
		return answer{}
	}
	return answer{Task: decodeTask(r.t, raw)}
}

// sendTo sends msg (built with message) and returns the answer.
func (r *rig) sendTo(d wire.Dialect, msg map[string]any) answer {
	r.t.Helper()
	return r.call(d, wire.OpSend, map[string]any{"message": msg})
}

func (r *rig) get(d wire.Dialect, id string) answer {
	r.t.Helper()
	return r.call(d, wire.OpGetTask, map[string]any{"id": id})
}

func (r *rig) cancel(d wire.Dialect, id string) answer {
	r.t.Helper()
	return r.call(d, wire.OpCancelTask, map[string]any{"id": id})
}

// withMeta adds metadata keys to a message built with message.
func withMeta(m map[string]any, kv ...string) map[string]any {
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		md[kv[i]] = kv[i+1]
	}
	m["metadata"] = md
	return m
}

// streamUpTo streams msg and collects at most n events (fewer when the
// stream ends first); it then leaves, so streams held open end too.
func (r *rig) streamUpTo(d wire.Dialect, msg map[string]any, n int) ([]observed, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, method(d, wire.OpStream), map[string]any{"message": msg})
	require.NoError(r.t, err)
	defer s.Close()
	var out []observed
	for ev, err := range s.Events() {
		if err != nil {
			return out, err
		}
		out = append(out, observe(r.t, ev.Data, true))
		if len(out) == n {
			break
		}
	}
	return out, nil
}

// journalStates lists the states the agent emitted for task id, in order.
func journalStates(srv *server.Server, id string) []wire.TaskState {
	var out []wire.TaskState
	for _, e := range srv.Journal().Entries() {
		if e.Kind == server.EntryEvent && e.TaskID == id && e.State != "" {
			out = append(out, e.State)
		}
	}
	return out
}

// streamLeft streams msg, reads n events, then leaves, and returns every
// event read and the reason the server journaled for the stream's end:
// "client gone" says it was still open when the client left, with nothing
// more to send. (A wall-time read window of 200-300ms could end before
// the events came on a loaded machine.)
func (r *rig) streamLeft(d wire.Dialect, msg map[string]any, n int) (obs []observed, closeReason string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := r.stream(ctx, method(d, wire.OpStream), map[string]any{"message": msg})
	require.NoError(r.t, err)
	defer s.Close()
	events := make(chan []byte)
	go func() {
		defer close(events)
		for ev, err := range s.Events() {
			if err != nil {
				return
			}
			events <- ev.Data
		}
	}()
	for len(obs) < n {
		select {
		case data, ok := <-events:
			if !ok {
				cancel()
				return obs, r.lastStreamClose()
			}
			obs = append(obs, observe(r.t, data, true))
		case <-time.After(10 * time.Second):
			r.t.Fatalf("%d events within 10s, want %d: %s", len(obs), n, kinds(obs))
		}
	}
	cancel()
	for data := range events {
		obs = append(obs, observe(r.t, data, true))
	}
	return obs, r.lastStreamClose()
}

// lastStreamClose waits for the journal's newest stream-close entry to
// cover the newest request and returns its reason.
func (r *rig) lastStreamClose() string {
	r.t.Helper()
	var reason string
	require.Eventually(r.t, func() bool {
		reqs := r.srv.Journal().Filter(0, "", "", server.EntryRequest)
		closes := r.srv.Journal().Filter(0, "", "", server.EntryStreamClose)
		if len(reqs) == 0 || len(closes) == 0 || closes[len(closes)-1].Request != reqs[len(reqs)-1].Request {
			return false
		}
		reason = closes[len(closes)-1].Detail
		return true
	}, 10*time.Second, time.Millisecond, "no stream-close entry for the stream")
	return reason
}

// parseErr parses through the catalogue, for tests of bad specs.
func parseErr(text string) (behaviors.Behavior, error) { return behaviors.Parse(text) }

// streamContexts streams msg to its end and returns the contextId of the
// opening task and those of the following events.
func (r *rig) streamContexts(d wire.Dialect, msg map[string]any) (string, []string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, method(d, wire.OpStream), map[string]any{"message": msg})
	require.NoError(r.t, err)
	defer s.Close()
	first := ""
	var rest []string
	for ev, err := range s.Events() {
		require.NoError(r.t, err)
		var env struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		require.NoError(r.t, json.Unmarshal(ev.Data, &env))
		for k, v := range env.Result {
			var w struct {
				ContextID string `json:"contextId"`
			}
			require.NoError(r.t, json.Unmarshal(v, &w))
			if k == "task" {
				first = w.ContextID
			} else {
				rest = append(rest, w.ContextID)
			}
		}
	}
	return first, rest
}
