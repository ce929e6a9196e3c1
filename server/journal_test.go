package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func TestJournalRecordsInOrder(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 71, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
	cl := newClient(t, h, dialectCases[0])
	tk := cl.mustSend(sendOpts{messageID: "m-1", skill: "echo"})

	es := h.srv.Journal().Entries()
	var kinds []server.EntryKind
	for i, e := range es {
		kinds = append(kinds, e.Kind)
		assert.Equal(t, int64(i+1), e.Seq, "seq counts from 1 without gaps")
		assert.False(t, e.Time.IsZero())
		assert.Equal(t, "agent", e.Agent)
		if i > 0 {
			assert.False(t, e.Time.Before(es[i-1].Time), "times never go back")
		}
	}
	require.Equal(t, []server.EntryKind{server.EntryRequest, server.EntryDecision, server.EntryEvent, server.EntryEvent,
		server.EntryEvent, server.EntryEvent, server.EntryResponse}, kinds)
	req, dec, resp := es[0], es[1], es[6]
	assert.Equal(t, wire.OpSend, req.Op)
	assert.Equal(t, "SendMessage", req.Method)
	assert.Equal(t, wire.V10, req.Dialect)
	assert.Equal(t, wire.BindingJSONRPC, req.Binding)
	assert.Equal(t, "m-1", req.MessageID)
	assert.Equal(t, []string{"skillId"}, req.MetadataKeys)
	assert.True(t, strings.HasPrefix(dec.Detail, "new"), dec.Detail)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, "", wire.StateCompleted},
		[]wire.TaskState{es[2].State, es[3].State, es[4].State, es[5].State})
	assert.Contains(t, es[4].Detail, "artifact")
	for _, e := range es[2:6] {
		assert.Equal(t, tk.ID, e.TaskID)
	}
	assert.Equal(t, req.Request, resp.Request, "request and response are joined by Request")
	assert.Equal(t, tk.ID, resp.TaskID)
	assert.Equal(t, tk.ContextID, resp.ContextID)
	assert.Equal(t, wire.StateCompleted, resp.State)

	// An error response carries its code; a stream records how it closed.
	_, e := cl.get("nope", nil)
	require.NotNil(t, e)
	last := h.srv.Journal().Entries()
	assert.Equal(t, wire.CodeTaskNotFound, last[len(last)-1].ErrorCode)
	evs, e := cl.stream(sendOpts{})
	require.Nil(t, e)
	require.NotEmpty(t, evs)
	waitFor(t, "the stream-close entry", func() bool {
		all := h.srv.Journal().Entries()
		return all[len(all)-1].Kind == server.EntryStreamClose
	})
	all := h.srv.Journal().Entries()
	assert.Equal(t, "complete: completed", all[len(all)-1].Detail)
	assert.Equal(t, evs[0].TaskID, all[len(all)-1].TaskID)

	// Card fetches are journaled too.
	h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
	all = h.srv.Journal().Entries()
	assert.Equal(t, server.EntryCard, all[len(all)-1].Kind)
}

// journalOver reads the journal over HTTP.
func journalOver(t *testing.T, h *harness, query string) []server.Entry {
	t.Helper()
	status, hdr, b := h.do(http.MethodGet, "/_a2amock/journal"+query, nil, nil)
	require.Equal(t, http.StatusOK, status, "%s", b)
	require.Contains(t, hdr.Get("Content-Type"), "application/json")
	var out struct{ Entries []server.Entry }
	require.NoError(t, json.Unmarshal(b, &out))
	require.NotNil(t, out.Entries, "entries is a list even when empty: %s", b)
	return out.Entries
}

func TestJournalHTTPAndReset(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 72, StepDelay: -1, Agents: []server.AgentConfig{{Name: "one"}, {Name: "two"}}})
	cl := newClient(t, h, dialectCases[0])
	first := cl.mustSend(sendOpts{})
	cl.base = "/agents/two"
	cl.mustSend(sendOpts{})

	all := journalOver(t, h, "")
	assert.Equal(t, h.srv.Journal().Entries(), stripMono(all))
	mid := all[len(all)/2].Seq
	since := journalOver(t, h, "?since="+strconv.FormatInt(mid, 10))
	require.NotEmpty(t, since)
	assert.Equal(t, mid+1, since[0].Seq)
	assert.Equal(t, all[len(all)-1].Seq, since[len(since)-1].Seq)
	assert.Empty(t, journalOver(t, h, "?since="+strconv.FormatInt(all[len(all)-1].Seq, 10)))
	for _, e := range journalOver(t, h, "?agent=two") {
		assert.Equal(t, "two", e.Agent)
	}
	status, _, _ := h.do(http.MethodGet, "/_a2amock/journal?since=yesterday", nil, nil)
	assert.Equal(t, http.StatusBadRequest, status)

	status, _, _ = h.post("/_a2amock/reset", nil, nil)
	assert.Equal(t, http.StatusNoContent, status)
	assert.Empty(t, journalOver(t, h, ""))
	assert.Zero(t, h.srv.Journal().Len())
	cl.base = ""
	_, e := cl.get(first.ID, nil)
	require.NotNil(t, e, "reset forgets tasks")
	assert.Equal(t, wire.CodeTaskNotFound, e.Code)
	assert.Len(t, listOver(h, false)(t, map[string]any{}).Tasks, 0)
	assert.Equal(t, int64(1), h.srv.Journal().Entries()[0].Seq, "the journal starts over")
}

// stripMono drops what JSON cannot carry so entries compare equal.
func stripMono(es []server.Entry) []server.Entry {
	for i := range es {
		es[i].Time = es[i].Time.UTC()
	}
	return es
}

func TestControlAPIGuard(t *testing.T) {
	t.Parallel()
	open, err := server.New(server.Config{Seed: 73})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, open.Close()) })
	tokened, err := server.New(server.Config{Seed: 73, ControlToken: "s3cret"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tokened.Close()) })

	for _, tc := range []struct {
		name   string
		srv    *server.Server
		method string
		path   string
		remote string
		auth   string
		status int
	}{
		{"loopback v4", open, "GET", "/_a2amock/journal", "127.0.0.1:5555", "", 200},
		{"loopback v6", open, "GET", "/_a2amock/journal", "[::1]:5555", "", 200},
		{"remote", open, "GET", "/_a2amock/journal", "203.0.113.7:5555", "", 403},
		{"remote reset", open, "POST", "/_a2amock/reset", "203.0.113.7:5555", "", 403},
		{"private network", open, "GET", "/_a2amock/journal", "10.1.2.3:5555", "", 403},
		{"no address", open, "GET", "/_a2amock/journal", "", "", 403},
		{"loopback reset", open, "POST", "/_a2amock/reset", "127.0.0.1:1", "", 204},
		{"token missing", tokened, "GET", "/_a2amock/journal", "127.0.0.1:5555", "", 401},
		{"token wrong", tokened, "GET", "/_a2amock/journal", "127.0.0.1:5555", "Bearer nope", 401},
		{"token not bearer", tokened, "GET", "/_a2amock/journal", "127.0.0.1:5555", "s3cret", 401},
		{"token right, remote", tokened, "GET", "/_a2amock/journal", "203.0.113.7:5555", "Bearer s3cret", 200},
		{"token right, reset", tokened, "POST", "/_a2amock/reset", "203.0.113.7:5555", "Bearer s3cret", 204},
		// A reverse proxy on the host connects from loopback for its clients.
		{"proxied for a remote client", open, "GET", "/_a2amock/journal", "127.0.0.1:5555|X-Forwarded-For: 203.0.113.7", "", 403},
		{"proxied reset", open, "POST", "/_a2amock/reset", "127.0.0.1:5555|Forwarded: for=203.0.113.7;proto=https", "", 403},
		{"proxied for a loopback client", open, "GET", "/_a2amock/journal", "127.0.0.1:5555|X-Forwarded-For: 127.0.0.1", "", 200},
		{"token right, proxied", tokened, "GET", "/_a2amock/journal", "127.0.0.1:5555|X-Real-IP: 203.0.113.7", "Bearer s3cret", 200},
	} {
		req := httptest.NewRequest(tc.method, "http://127.0.0.1:8080"+tc.path, nil)
		remote, forwarded, _ := strings.Cut(tc.remote, "|")
		req.RemoteAddr = remote
		if name, value, ok := strings.Cut(forwarded, ": "); ok {
			req.Header.Set(name, value)
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		tc.srv.Handler().ServeHTTP(rec, req)
		assert.Equal(t, tc.status, rec.Code, "%s: %s", tc.name, rec.Body)
		if tc.status == 401 {
			assert.Contains(t, rec.Header().Get("WWW-Authenticate"), "Bearer", tc.name)
		}
		if tc.status >= 400 {
			var body struct{ Error struct{ Code int } }
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), tc.name)
			assert.Equal(t, tc.status, body.Error.Code, tc.name)
		}
		if tc.status == 403 && forwarded != "" {
			assert.Contains(t, rec.Body.String(), "forwarded for 203.0.113.7", tc.name)
		}
	}
	// The agent itself answers remote clients.
	req := httptest.NewRequest("GET", "http://mock.example/.well-known/agent-card.json", nil)
	req.RemoteAddr = "203.0.113.7:5555"
	rec := httptest.NewRecorder()
	open.Handler().ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
}

// script runs a fixed sequence of requests and returns what a client saw.
func script(t *testing.T, h *harness) []string {
	t.Helper()
	var seen []string
	c10 := newClient(t, h, dialectCases[0])
	c03 := newClient(t, h, dialectCases[2])
	note := func(vs ...any) {
		for _, v := range vs {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			seen = append(seen, string(b))
		}
	}
	a := c10.mustSend(sendOpts{messageID: "d1"})
	b := c10.mustSend(sendOpts{messageID: "d2", skill: "ask"})
	c := c10.mustSend(sendOpts{messageID: "d3", taskID: b.ID, contextID: b.ContextID})
	d := c03.mustSend(sendOpts{messageID: "d4"})
	evs, e := c10.stream(sendOpts{messageID: "d5"})
	require.Nil(t, e)
	// The stream's close is journaled when its handler returns, which may
	// be after the client read the last event.
	waitFor(t, "the stream to be journaled", func() bool {
		all := h.srv.Journal().Entries()
		return all[len(all)-1].Kind == server.EntryStreamClose
	})
	note(a.ID, a.ContextID, b.ID, b.ContextID, c.ID, d.ID, d.ContextID, kinds(evs), states(evs), evs[0].TaskID)
	res, e := c10.call(wire.OpGetTask, map[string]any{"id": a.ID})
	require.Nil(t, e)
	var full struct {
		Artifacts []struct {
			ArtifactID string
			Parts      []struct{ Text string }
		}
	}
	require.NoError(t, json.Unmarshal(res, &full))
	note(full)
	for _, en := range h.srv.Journal().Entries() {
		en.Time = time.Time{}
		note(en)
	}
	return seen
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	cfg := func(seed uint64) server.Config {
		return server.Config{Seed: seed, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)}
	}
	one := script(t, start(t, cfg(99)))
	two := script(t, start(t, cfg(99)))
	assert.Equal(t, one, two, "same seed, same requests: same ids, content and journal")
	other := script(t, start(t, cfg(100)))
	assert.NotEqual(t, one[0], other[0], "another seed gives other ids")

	// After a reset the server replays the same sequence.
	h := start(t, cfg(99))
	script(t, h)
	h.srv.Reset()
	assert.Equal(t, one, script(t, h))
}

// After Reset, players of the forgotten tasks emit nothing more: the
// journal stays empty until the next request.
//
// On the fake clock: the players wait on it between steps, Reset must
// release their timers, and however far the clock then moves nothing is
// journaled (a 3ms sleep after Reset only gave a late player a chance).
func TestResetStopsPlayers(t *testing.T) {
	t.Parallel()
	const step = 200 * time.Microsecond
	clk := timeline.NewFakeClock(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	h := start(t, server.Config{Seed: 74, StepDelay: step, Clock: clk})
	cl := newClient(t, h, dialectCases[0])
	for round := range 30 {
		for i := range 8 {
			cl.mustSend(sendOpts{immediate: true})
			clk.Advance(time.Duration(i%3) * step) // players at different steps
		}
		h.srv.Reset()
		require.Eventually(t, func() bool { return clk.Waiters() == 0 }, 10*time.Second, time.Millisecond,
			"round %d: a player still waits on the clock after Reset", round)
		clk.Advance(time.Hour)
		require.Zero(t, h.srv.Journal().Len(), "round %d: journal after reset: %+v", round, h.srv.Journal().Entries())
	}
}
