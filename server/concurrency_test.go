package server_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// neverEnding is an agent whose "echo" tasks reach working and stay there.
func neverEnding(d wire.Dialect) []server.AgentConfig {
	return []server.AgentConfig{{Name: "agent", Card: testCard(d, false), Timelines: map[string]timeline.Timeline{
		"echo": {
			{Kind: timeline.StepState, State: wire.StateSubmitted},
			{Kind: timeline.StepState, State: wire.StateWorking},
			{Kind: timeline.StepStop},
		},
	}}}
}

func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 81, StepDelay: time.Millisecond, Agents: agentsFor(dialectCases[0], false)})
	const clients, rounds = 12, 6
	t.Run("clients", func(t *testing.T) {
		for i := range clients {
			c := dialectCases[i%len(dialectCases)]
			t.Run(fmt.Sprintf("%d-%s", i, c.name), func(t *testing.T) {
				t.Parallel()
				cl := newClient(t, h, c)
				for r := range rounds {
					switch r % 3 {
					case 0:
						tk := cl.mustSend(sendOpts{})
						assert.Equal(t, wire.StateCompleted, tk.State)
					case 1:
						evs, e := cl.stream(sendOpts{})
						require.Nil(t, e)
						assert.Equal(t, wire.StateCompleted, evs[len(evs)-1].State)
					case 2:
						tk := cl.mustSend(sendOpts{skill: "ask"})
						require.Equal(t, wire.StateInputRequired, tk.State)
						next := cl.mustSend(sendOpts{taskID: tk.ID, contextID: tk.ContextID})
						assert.Equal(t, tk.ID, next.ID)
						assert.Equal(t, wire.StateCompleted, next.State)
					}
				}
			})
		}
	})
	// Every task got its own id and the store holds them all.
	p := listOver(h, false)(t, map[string]any{"pageSize": 100})
	assert.Equal(t, clients*rounds, p.TotalSize)
	seen := map[string]bool{}
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == server.EntryDecision && strings.HasPrefix(e.Detail, "new") {
			continue
		}
		if e.Kind == server.EntryEvent && e.State == wire.StateSubmitted {
			assert.False(t, seen[e.TaskID], "task id %s minted twice", e.TaskID)
			seen[e.TaskID] = true
		}
	}
	assert.Len(t, seen, clients*rounds)
}

// rawStream opens a stream and returns its response once the first event
// arrived.
func openRaw(t *testing.T, h *harness, body []byte) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+"/", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := h.client.Do(req)
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "data:"), line)
	return resp, br
}

func TestCloseEndsOpenStreams(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 82, StepDelay: time.Hour, Agents: neverEnding(wire.V10)})
	cl := newClient(t, h, dialectCases[0])
	const n = 8
	ended := make(chan error, n)
	for range n {
		resp, br := openRaw(t, h, rpcBody("SendStreamingMessage", cl.sendParams(sendOpts{})))
		go func() {
			defer resp.Body.Close()
			_, err := io.Copy(io.Discard, br)
			ended <- err
		}()
	}
	// A blocking send on a task that never ends is in flight too.
	slow := make(chan int, 1)
	go func() {
		resp, err := h.client.Post(h.url+"/", "application/json", bytes.NewReader(rpcBody("SendMessage", cl.sendParams(sendOpts{}))))
		if err != nil {
			slow <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		slow <- resp.StatusCode
	}()
	waitFor(t, "the blocking send to arrive", func() bool {
		n := 0
		for _, e := range h.srv.Journal().Entries() {
			if e.Kind == server.EntryRequest {
				n++
			}
		}
		return n == 9
	})

	closed := make(chan error, 1)
	go func() { closed <- h.srv.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return with streams open")
	}
	for range n {
		select {
		case err := <-ended:
			assert.NoError(t, err, "the stream ended cleanly, not cut")
		case <-time.After(5 * time.Second):
			t.Fatal("a stream stayed open after Close")
		}
	}
	select {
	case status := <-slow:
		assert.Equal(t, http.StatusOK, status, "the blocking send was answered")
	case <-time.After(5 * time.Second):
		t.Fatal("the blocking send was not answered")
	}
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == server.EntryStreamClose {
			assert.Equal(t, "server shutting down", e.Detail)
		}
	}
}

func TestClientDisconnectEndsStream(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 83, StepDelay: time.Hour, Agents: neverEnding(wire.V10)})
	cl := newClient(t, h, dialectCases[0])
	resp, _ := openRaw(t, h, rpcBody("SendStreamingMessage", cl.sendParams(sendOpts{})))
	require.NoError(t, resp.Body.Close())
	waitFor(t, "the server to notice the client left", func() bool {
		for _, e := range h.srv.Journal().Entries() {
			if e.Kind == server.EntryStreamClose {
				return e.Detail == "client gone"
			}
		}
		return false
	})

	// Resubscribing and leaving ends that stream too, and the task lives on.
	var id string
	for _, e := range h.srv.Journal().Entries() {
		if e.Kind == server.EntryEvent {
			id = e.TaskID
		}
	}
	resp, _ = openRaw(t, h, rpcBody("SubscribeToTask", map[string]any{"id": id}))
	require.NoError(t, resp.Body.Close())
	waitFor(t, "the subscription to end", func() bool {
		n := 0
		for _, e := range h.srv.Journal().Entries() {
			if e.Kind == server.EntryStreamClose && e.Detail == "client gone" {
				n++
			}
		}
		return n == 2
	})
	tk, e := cl.get(id, nil)
	require.Nil(t, e)
	assert.Equal(t, wire.StateWorking, tk.State)
}

func TestTaskRetention(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 84, StepDelay: -1, TaskRetention: 3})
	cl := newClient(t, h, dialectCases[0])
	var ids []string
	for range 10 {
		ids = append(ids, cl.mustSend(sendOpts{}).ID)
	}
	p := listOver(h, false)(t, map[string]any{})
	assert.Equal(t, 3, p.TotalSize)
	for i, id := range ids {
		_, e := cl.get(id, nil)
		if i < len(ids)-3 {
			require.NotNil(t, e, "task %d was evicted", i)
			assert.Equal(t, wire.CodeTaskNotFound, e.Code)
		} else {
			assert.Nil(t, e, "task %d is kept", i)
		}
	}

	// Tasks that are not terminal are never evicted.
	parked := start(t, server.Config{Seed: 85, StepDelay: -1, TaskRetention: 2, Agents: agentsFor(dialectCases[0], false)})
	pc := newClient(t, parked, dialectCases[0])
	var waiting []string
	for range 4 {
		waiting = append(waiting, pc.mustSend(sendOpts{skill: "ask"}).ID)
	}
	for _, id := range waiting {
		tk, e := pc.get(id, nil)
		require.Nil(t, e)
		assert.Equal(t, wire.StateInputRequired, tk.State)
	}
}

// Running tasks at the front of the store, more than the eviction
// look-ahead, do not let finished tasks pile up behind them.
func TestTaskRetentionBehindRunningTasks(t *testing.T) {
	t.Parallel()
	const retention = 8
	h := start(t, server.Config{Seed: 87, StepDelay: -1, TaskRetention: retention, Agents: agentsFor(dialectCases[0], false)})
	cl := newClient(t, h, dialectCases[0])
	for range 70 {
		cl.mustSend(sendOpts{skill: "ask"})
	}
	for range 40 {
		cl.mustSend(sendOpts{})
	}
	list := listOver(h, false)
	assert.Equal(t, 70, list(t, map[string]any{"status": "TASK_STATE_INPUT_REQUIRED"}).TotalSize, "running tasks are kept")
	done := list(t, map[string]any{"status": "TASK_STATE_COMPLETED"}).TotalSize
	assert.LessOrEqual(t, done, retention/4, "finished tasks beyond the retention are swept")
}

func TestJournalRetention(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 86, StepDelay: -1, JournalRetention: 20})
	cl := newClient(t, h, dialectCases[0])
	for range 10 {
		cl.mustSend(sendOpts{})
	}
	j := h.srv.Journal()
	assert.Equal(t, 20, j.Len())
	es := j.Entries()
	require.Len(t, es, 20)
	for i := 1; i < len(es); i++ {
		assert.Equal(t, es[i-1].Seq+1, es[i].Seq, "the newest entries, in order")
	}
	assert.Equal(t, int64(70), es[len(es)-1].Seq, "seq keeps counting across evictions")
	since := j.Since(0)
	assert.Equal(t, es, since)
	assert.Len(t, j.Since(65), 5)
	assert.Len(t, journalOver(t, h, "?since=60"), 10)
}
