package behaviors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// rig is one real server hosting agent "a" with the behaviors under test,
// and an HTTP client of its own so that no connection outlives the test.
type rig struct {
	t      *testing.T
	srv    *server.Server
	client *http.Client
	base   string
	nextID int
}

// rigOptions tunes the server of a rig.
type rigOptions struct {
	seed      uint64
	dialect   wire.Dialect
	caps      *cards.Capabilities
	timelines map[string]timeline.Timeline
	keepAlive time.Duration
	// extended gives the agent an extended card.
	extended bool
	// clock is the server's clock (the wall clock when nil).
	clock timeline.Clock
}

// testCard is a small card: skill "s1" completes, skill "s2" too (a second
// skill to prove scoping), both without input.
func testCard(d wire.Dialect, caps cards.Capabilities) *cards.Card {
	return &cards.Card{
		Name: "a", Description: "test agent", Version: "1.0.0", Dialect: d,
		Capabilities:       caps,
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{
			{ID: "s1", Name: "One", Description: "first", Tags: []string{"t"}},
			{ID: "s2", Name: "Two", Description: "second", Tags: []string{"t"}},
		},
	}
}

func newRig(t *testing.T, o rigOptions, bs ...behaviors.Behavior) *rig {
	t.Helper()
	if o.dialect == "" {
		o.dialect = wire.V10
	}
	caps := cards.Capabilities{Streaming: true}
	if o.caps != nil {
		caps = *o.caps
	}
	if o.keepAlive == 0 {
		o.keepAlive = 20 * time.Millisecond
	}
	srv, err := server.New(server.Config{
		Seed:              o.seed,
		StepDelay:         -1,
		KeepAliveInterval: o.keepAlive,
		Clock:             o.clock,
		Agents: []server.AgentConfig{{Name: "a", Card: testCard(o.dialect, caps),
			Behaviors: bs, Timelines: o.timelines, ExtendedCard: extendedCard(o)}},
	})
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

// extendedCard is the agent's extended card when the rig asks for one.
func extendedCard(o rigOptions) *cards.Card {
	if !o.extended {
		return nil
	}
	c := testCard(o.dialect, cards.Capabilities{Streaming: true, ExtendedAgentCard: true})
	c.Description = "the extended card"
	return c
}

// parse builds a behavior from text through the catalogue.
func parse(t *testing.T, text string) behaviors.Behavior {
	t.Helper()
	b, err := behaviors.Parse(text)
	require.NoError(t, err)
	return b
}

// messageSeq makes every message's id unique: the agent answers a repeated
// messageId as a retry of the first message.
var messageSeq atomic.Int64

// message is a user message in the dialect's JSON, addressed to skill.
func message(d wire.Dialect, text, skill, taskID string) map[string]any {
	m := map[string]any{"messageId": fmt.Sprintf("m-%s-%s-%d", skill, text, messageSeq.Add(1)), "parts": []any{map[string]any{"text": text}}}
	if d == wire.V10 {
		m["role"] = "ROLE_USER"
	} else {
		m["role"] = "user"
		m["kind"] = "message"
		m["parts"] = []any{map[string]any{"kind": "text", "text": text}}
	}
	if skill != "" {
		m["metadata"] = map[string]any{"skillId": skill}
	}
	if taskID != "" {
		m["taskId"] = taskID
	}
	return m
}

// method names the operation in the dialect.
func method(d wire.Dialect, op wire.Op) string {
	v10 := map[wire.Op]string{wire.OpSend: "SendMessage", wire.OpStream: "SendStreamingMessage", wire.OpGetTask: "GetTask",
		wire.OpSubscribe: "SubscribeToTask", wire.OpSetPushConfig: "CreateTaskPushNotificationConfig"}
	v03 := map[wire.Op]string{wire.OpSend: "message/send", wire.OpStream: "message/stream", wire.OpGetTask: "tasks/get",
		wire.OpSubscribe: "tasks/resubscribe", wire.OpSetPushConfig: "tasks/pushNotificationConfig/set"}
	if d == wire.V10 {
		return v10[op]
	}
	return v03[op]
}

// rpcRequest builds a JSON-RPC POST to the agent.
func (r *rig) rpcRequest(name string, params any) *http.Request {
	r.t.Helper()
	r.nextID++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.nextID, "method": name, "params": params})
	require.NoError(r.t, err)
	req, err := http.NewRequest(http.MethodPost, r.base+"/", bytes.NewReader(body))
	require.NoError(r.t, err)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// rpc sends a unary JSON-RPC call and decodes the envelope.
func (r *rig) rpc(name string, params any) rpcReply {
	r.t.Helper()
	resp, err := r.client.Do(r.rpcRequest(name, params))
	require.NoError(r.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	var out rpcReply
	require.NoError(r.t, json.Unmarshal(b, &out), "body %s", b)
	out.Status = resp.StatusCode
	return out
}

type rpcReply struct {
	Status int             `json:"-"`
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send sends a message and returns the task id of the answer.
func (r *rig) send(d wire.Dialect, text, skill string, returnImmediately bool) string {
	r.t.Helper()
	params := map[string]any{"message": message(d, text, skill, "")}
	if returnImmediately {
		if d == wire.V10 {
			params["configuration"] = map[string]any{"returnImmediately": true}
		} else {
			params["configuration"] = map[string]any{"blocking": false}
		}
	}
	rep := r.rpc(method(d, wire.OpSend), params)
	require.Nil(r.t, rep.Error)
	var res map[string]any
	require.NoError(r.t, json.Unmarshal(rep.Result, &res))
	if t, ok := res["task"].(map[string]any); ok {
		return t["id"].(string)
	}
	return res["id"].(string)
}

// observed is what a client learns from one stream event.
type observed struct {
	Kind       string // task, message, status, artifact
	TaskID     string
	State      string // as on the wire, normalised to lower-case v0.3 names
	Final      *bool
	ArtifactID string
	Append     bool
	LastChunk  bool
	Artifacts  int
}

func (o observed) String() string {
	s := o.Kind
	if o.State != "" {
		s += ":" + o.State
	}
	if o.ArtifactID != "" {
		s += ":" + o.ArtifactID
	}
	if o.Final != nil && *o.Final {
		s += ":final"
	}
	return s
}

var v10States = map[string]string{"TASK_STATE_SUBMITTED": "submitted", "TASK_STATE_WORKING": "working",
	"TASK_STATE_COMPLETED": "completed", "TASK_STATE_FAILED": "failed", "TASK_STATE_CANCELED": "canceled",
	"TASK_STATE_INPUT_REQUIRED": "input-required", "TASK_STATE_REJECTED": "rejected", "TASK_STATE_AUTH_REQUIRED": "auth-required"}

// observe decodes one SSE data payload (a JSON-RPC envelope, or a bare
// StreamResponse when rpc is false).
func observe(t *testing.T, data []byte, rpc bool) observed {
	t.Helper()
	if rpc {
		var env rpcReply
		require.NoError(t, json.Unmarshal(data, &env), "event %s", data)
		require.Nil(t, env.Error, "event %s", data)
		data = env.Result
	}
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m), "event %s", data)
	type status struct {
		State string `json:"state"`
	}
	type art struct {
		ArtifactID string `json:"artifactId"`
	}
	var w struct {
		Kind      string  `json:"kind"`
		ID        string  `json:"id"`
		TaskID    string  `json:"taskId"`
		Status    *status `json:"status"`
		Final     *bool   `json:"final"`
		Artifact  *art    `json:"artifact"`
		Artifacts []art   `json:"artifacts"`
		Append    bool    `json:"append"`
		LastChunk bool    `json:"lastChunk"`
	}
	kind := ""
	for k, v := range m {
		switch k {
		case "task", "message", "statusUpdate", "artifactUpdate":
			kind = map[string]string{"task": "task", "message": "message", "statusUpdate": "status", "artifactUpdate": "artifact"}[k]
			require.NoError(t, json.Unmarshal(v, &w))
		}
	}
	if kind == "" {
		require.NoError(t, json.Unmarshal(data, &w))
		kind = map[string]string{"task": "task", "message": "message", "status-update": "status", "artifact-update": "artifact"}[w.Kind]
	}
	o := observed{Kind: kind, TaskID: w.TaskID, Final: w.Final, Append: w.Append, LastChunk: w.LastChunk, Artifacts: len(w.Artifacts)}
	if kind == "task" {
		o.TaskID = w.ID
	}
	if w.Status != nil {
		o.State = w.Status.State
		if s, ok := v10States[o.State]; ok {
			o.State = s
		}
	}
	if w.Artifact != nil {
		o.ArtifactID = w.Artifact.ArtifactID
	}
	return o
}

// stream opens a JSON-RPC stream and returns it (the caller closes it).
func (r *rig) stream(ctx context.Context, name string, params any) (*sse.Stream, error) {
	r.t.Helper()
	return sse.Do(ctx, r.client, r.rpcRequest(name, params))
}

// streamMessage streams a new message and collects what the client sees:
// the events, and the error that ended the stream (nil for a clean end).
func (r *rig) streamMessage(d wire.Dialect, text, skill string) ([]observed, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, method(d, wire.OpStream), map[string]any{"message": message(d, text, skill, "")})
	require.NoError(r.t, err)
	defer s.Close()
	return collect(r.t, s)
}

func collect(t *testing.T, s *sse.Stream) ([]observed, error) {
	t.Helper()
	var out []observed
	for ev, err := range s.Events() {
		if err != nil {
			return out, err
		}
		out = append(out, observe(t, ev.Data, true))
	}
	return out, nil
}

// kinds renders observations compactly for assertions.
func kinds(obs []observed) string {
	parts := make([]string, len(obs))
	for i, o := range obs {
		parts[i] = o.String()
	}
	return strings.Join(parts, " ")
}

// longTimeline scripts a task with n artifacts between working and
// completed, so probabilistic stream faults have many events to act on.
func longTimeline(n int) map[string]timeline.Timeline {
	tl := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateWorking}}
	for i := range n {
		tl = append(tl, timeline.Step{Kind: timeline.StepArtifact, LastChunk: true,
			Artifact: &wire.Artifact{ArtifactID: fmt.Sprintf("art-%02d", i), Parts: []wire.Part{wire.TextPart("chunk")}}})
	}
	tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateCompleted})
	return map[string]timeline.Timeline{"s1": tl}
}

// sequence streams one message through a fresh server with seed and the
// behavior text, and renders what the client saw, for determinism checks.
func sequence(t *testing.T, seed uint64, spec string) string {
	t.Helper()
	r := newRig(t, rigOptions{seed: seed, timelines: longTimeline(12)}, parse(t, spec))
	obs, err := r.streamMessage(wire.V10, "hi", "s1")
	require.NoError(t, err)
	return kinds(obs)
}

// fetch fetches path below the agent and returns status and body.
func (r *rig) fetch(path string) (int, []byte) {
	r.t.Helper()
	resp, err := r.client.Get(r.base + path)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return resp.StatusCode, b
}

// card fetches and parses the served card.
func (r *rig) card() *cards.Card {
	r.t.Helper()
	status, b := r.fetch("/.well-known/agent-card.json")
	require.Equal(r.t, http.StatusOK, status, "%s", b)
	c, err := cards.Parse(b)
	require.NoError(r.t, err)
	return c
}

// errorCode sends a JSON-RPC call and returns its error code (0 for none).
func (r *rig) errorCode(name string, params any) int {
	r.t.Helper()
	rep := r.rpc(name, params)
	if rep.Error == nil {
		return 0
	}
	return rep.Error.Code
}
