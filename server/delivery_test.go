package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// received reads a v1.0 JSON-RPC stream as a conforming SSE client does and
// labels each event it dispatched: "task:state", "status:state" or
// "artifact", with the task id; a stream that ends badly ends the list.
func received(t *testing.T, h *harness, body []byte) []string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+"/", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := sse.Do(ctx, h.client, req)
	require.NoError(t, err)
	defer st.Close()
	var out []string
	for ev, err := range st.Events() {
		if err != nil {
			var te *sse.TruncatedError
			require.True(t, errors.As(err, &te), "only a cut frame may end the stream badly: %v", err)
			break
		}
		var env struct {
			Result map[string]struct {
				ID     string `json:"id"`
				TaskID string `json:"taskId"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(ev.Data, &env), "%s", ev.Data)
		for k, v := range env.Result {
			id := v.TaskID
			if k == "task" {
				id = v.ID
			}
			label := id + " artifact"
			if v.Status.State != "" {
				st, ok := wire.StateFromV10(v.Status.State)
				require.True(t, ok)
				label = id + " " + string(st)
			}
			out = append(out, label)
		}
	}
	return out
}

// journaled labels the stream-event entries of the stream the journal
// holds (the server's only stream request) as received does.
func journaled(t *testing.T, j []server.Entry, kind server.EntryKind) []string {
	var req int64
	for _, e := range j {
		if e.Kind == server.EntryRequest && e.Op == wire.OpStream {
			req = e.Request
		}
	}
	require.NotZero(t, req)
	var out []string
	for _, e := range j {
		if e.Kind != kind || e.Request != req {
			continue
		}
		label := e.TaskID + " artifact"
		if e.State != "" {
			label = e.TaskID + " " + string(e.State)
		}
		out = append(out, label)
	}
	return out
}

func streamBody() []byte {
	return rpcBody("SendStreamingMessage", map[string]any{"message": map[string]any{
		"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}})
}

// TestJournalIsWhatTheClientReceived: whatever the stream behaviors do to
// a stream — drop, duplicate, reorder, withhold the final event, re-frame,
// buffer into one write, add an event for another task, cut a frame — the
// stream-event entries of the journal list exactly the events a
// conforming client dispatched, in its order.
func TestJournalIsWhatTheClientReceived(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "stream-drop-events:rate=0.5", "stream-duplicate-events:rate=1",
		"stream-reorder-events:rate=1", "stream-no-final", "sse-framing:variant=multiline-data|comments|event-field",
		"sse-framing:variant=crlf", "sse-framing:variant=split,gap=0s", "sse-framing:variant=no-trailing-blank",
		"buffered-burst", "status-for-other-task", "stream-eof-mid-frame:after=2",
		"stream-drop-events:rate=0.5;stream-duplicate-events:rate=1"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			var bs []behaviors.Behavior
			if spec != "" {
				for _, one := range strings.Split(spec, ";") {
					b, err := behaviors.Catalogue().Parse(one)
					require.NoError(t, err)
					bs = append(bs, b)
				}
			}
			h := start(t, server.Config{Seed: 11, StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Behaviors: bs}}})
			got := received(t, h, streamBody())
			var j []server.Entry
			// The stream's close is journaled once the handler returns.
			waitFor(t, "stream-close", func() bool {
				j = h.srv.Journal().Entries()
				for _, e := range j {
					if e.Kind == server.EntryStreamClose {
						return true
					}
				}
				return false
			})
			assert.Equal(t, got, journaled(t, j, server.EntryStreamEvent))
			if spec == "" {
				assert.Empty(t, journaled(t, j, server.EntryWithheld))
				assert.Len(t, got, 4)
			}
		})
	}
}

// TestJournalNamesWhoShapedTheStream: a dropped event is journaled as
// withheld by the behavior that dropped it, the request names the
// behaviors that acted with their hook, and one in scope that changed
// nothing is not among them.
func TestJournalNamesWhoShapedTheStream(t *testing.T) {
	t.Parallel()
	var bs []behaviors.Behavior
	for _, spec := range []string{"stream-drop-events:rate=1", "latency:delay=0s", "stream-hang"} {
		b, err := behaviors.Catalogue().Parse(spec)
		require.NoError(t, err)
		bs = append(bs, b)
	}
	h := start(t, server.Config{Seed: 3, StepDelay: -1, KeepAliveInterval: time.Hour, Agents: []server.AgentConfig{{Name: "agent", Behaviors: bs}}})
	req, err := http.NewRequest(http.MethodPost, h.url+"/", bytes.NewReader(streamBody()))
	require.NoError(t, err)
	req.Header.Set("A2A-Version", "1.0")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sse.Do(ctx, h.client, req)
	require.NoError(t, err)
	events := make(chan int, 1)
	got := make(chan struct{}, 16)
	go func() {
		n := 0
		for _, err := range st.Events() {
			if err != nil {
				break
			}
			n++
			got <- struct{}{}
		}
		events <- n
	}()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no event on the stream")
	}
	// The stream hangs once stream-hang has acted on its end (journaled):
	// only then does the client leave (a 500ms deadline for the whole
	// stream could pass before its first event on a loaded machine).
	waitFor(t, "stream-hang holding the stream", func() bool {
		for _, e := range h.srv.Journal().Filter(0, "", "", server.EntryRequest) {
			for _, a := range e.Acted {
				if a.Behavior == "stream-hang" {
					return true
				}
			}
		}
		return false
	})
	cancel()
	n := <-events
	st.Close()
	assert.Equal(t, 1, n, "only the terminal event gets through, then the stream hangs")
	var j []server.Entry
	waitFor(t, "stream-close", func() bool {
		j = h.srv.Journal().Entries()
		return j[len(j)-1].Kind == server.EntryStreamClose
	})
	withheld := 0
	for _, e := range j {
		switch e.Kind {
		case server.EntryWithheld:
			withheld++
			assert.Equal(t, []string{"stream-drop-events:rate=1"}, e.Behaviors, "%+v", e)
		case server.EntryRequest:
			assert.Equal(t, []string{"stream-drop-events:rate=1", "latency:delay=0s", "stream-hang"}, e.Behaviors, "all three in scope")
			assert.Equal(t, []server.ActedBehavior{{Behavior: "stream-drop-events:rate=1", Hook: server.HookStreamEvent},
				{Behavior: "stream-hang", Hook: server.HookStreamEnd}}, e.Acted, "latency of 0s changed nothing")
		}
	}
	assert.Equal(t, 3, withheld, "the opening task, working and the artifact")
}

// TestGRPCJournalIsWhatTheClientReceived: on the gRPC binding too, the
// stream-event entries are the messages the client received, and the
// request names the behaviors that acted with their hook.
func TestGRPCJournalIsWhatTheClientReceived(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"stream-drop-events:rate=0.5", "stream-duplicate-events:rate=1", "stream-reorder-events:rate=1", "stream-no-final"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			h, c := grpcRig(t, false, spec)
			s, err := c.SendStreamingMessage(grpcCtx(t), grpcSend("x"))
			require.NoError(t, err)
			var got []string
			for {
				ev, err := s.Recv()
				if err != nil {
					break
				}
				switch p := ev.GetPayload().(type) {
				case *a2apb.StreamResponse_Task:
					st, _ := wire.StateFromV10(p.Task.GetStatus().GetState().String())
					got = append(got, p.Task.GetId()+" "+string(st))
				case *a2apb.StreamResponse_StatusUpdate:
					st, _ := wire.StateFromV10(p.StatusUpdate.GetStatus().GetState().String())
					got = append(got, p.StatusUpdate.GetTaskId()+" "+string(st))
				case *a2apb.StreamResponse_ArtifactUpdate:
					got = append(got, p.ArtifactUpdate.GetTaskId()+" artifact")
				}
			}
			var j []server.Entry
			waitFor(t, "stream-close", func() bool {
				j = h.srv.Journal().Entries()
				return j[len(j)-1].Kind == server.EntryStreamClose
			})
			assert.Equal(t, got, journaled(t, j, server.EntryStreamEvent))
			for _, e := range j {
				if e.Kind == server.EntryRequest {
					assert.Equal(t, server.BindingGRPC, e.Binding)
					require.NotEmpty(t, e.Acted, "the behavior changed the stream")
					assert.Equal(t, server.HookStreamEvent, e.Acted[0].Hook)
				}
			}
		})
	}
}
