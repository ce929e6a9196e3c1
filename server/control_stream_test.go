package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// journalStream opens GET /_a2amock/journal/stream and returns a pull
// iterator over its events; everything is closed when the test ends.
func journalStream(t *testing.T, h *harness, query string, hdr map[string]string) (func() (sse.Event, error, bool), *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/_a2amock/journal/stream"+query, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	st, err := sse.Do(ctx, h.client, req)
	require.NoError(t, err)
	next, stop := iter.Pull2(st.Events())
	t.Cleanup(func() { cancel(); _ = st.Close(); stop() })
	return next, st.Response()
}

// nextEntries reads events until one named "entries" (or "reset") arrives,
// within 10s.
func nextEvent(t *testing.T, next func() (sse.Event, error, bool)) sse.Event {
	t.Helper()
	type res struct {
		ev  sse.Event
		err error
		ok  bool
	}
	ch := make(chan res, 1)
	go func() { ev, err, ok := next(); ch <- res{ev, err, ok} }()
	select {
	case r := <-ch:
		require.NoError(t, r.err)
		require.True(t, r.ok, "the stream ended")
		return r.ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return sse.Event{}
}

func decodeEntries(t *testing.T, ev sse.Event) []server.Entry {
	t.Helper()
	require.Equal(t, "entries", ev.Name, "event %q: %s", ev.Name, ev.Data)
	var es []server.Entry
	require.NoError(t, json.Unmarshal(ev.Data, &es))
	require.NotEmpty(t, es)
	assert.Equal(t, strconv.FormatInt(es[len(es)-1].Seq, 10), ev.ID, "the event id is the last entry's seq")
	return es
}

func TestJournalStreamBacklogLiveAndReset(t *testing.T) {
	h := start(t, server.Config{Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	h.do(http.MethodGet, "/agents/a/.well-known/agent-card.json", nil, nil)
	next, resp := journalStream(t, h, "", nil)
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))

	es := decodeEntries(t, nextEvent(t, next))
	require.Len(t, es, 1, "the backlog: the card fetch before the stream opened")
	assert.Equal(t, server.EntryCard, es[0].Kind)

	// A new entry arrives live.
	h.do(http.MethodGet, "/agents/a/.well-known/agent-card.json", nil, nil)
	es = decodeEntries(t, nextEvent(t, next))
	assert.Equal(t, int64(2), es[0].Seq)

	// A reset is announced, and entries after it start over from 1.
	st, _, _ := h.do(http.MethodPost, "/_a2amock/reset", nil, nil)
	require.Equal(t, http.StatusNoContent, st)
	assert.Equal(t, "reset", nextEvent(t, next).Name)
	h.do(http.MethodGet, "/agents/a/.well-known/agent-card.json", nil, nil)
	es = decodeEntries(t, nextEvent(t, next))
	assert.Equal(t, int64(1), es[0].Seq)
}

func TestJournalStreamSinceAndLastEventID(t *testing.T) {
	h := start(t, server.Config{Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	for range 3 {
		h.do(http.MethodGet, "/agents/a/.well-known/agent-card.json", nil, nil)
	}
	next, _ := journalStream(t, h, "?since=2", nil)
	es := decodeEntries(t, nextEvent(t, next))
	require.Len(t, es, 1)
	assert.Equal(t, int64(3), es[0].Seq)

	next, _ = journalStream(t, h, "", map[string]string{"Last-Event-ID": "1"})
	es = decodeEntries(t, nextEvent(t, next))
	assert.Equal(t, []int64{2, 3}, []int64{es[0].Seq, es[1].Seq})

	st, _, body := h.do(http.MethodGet, "/_a2amock/journal/stream", nil, map[string]string{"Last-Event-ID": "x"})
	assert.Equal(t, http.StatusBadRequest, st)
	assert.Contains(t, string(body), "Last-Event-ID")
	st, _, body = h.do(http.MethodGet, "/_a2amock/journal/stream?since=abc", nil, nil)
	assert.Equal(t, http.StatusBadRequest, st)
	assert.Contains(t, string(body), "since")
}

// TestJournalStreamCoalesces: a burst of entries arrives in order, without
// gaps, in far fewer events than entries, none larger than 1000 entries.
func TestJournalStreamCoalesces(t *testing.T) {
	h := start(t, server.Config{Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	next, _ := journalStream(t, h, "", nil)
	const n = 2500
	done := make(chan struct{})
	// The burst is journaled in process, back to back: how many entries
	// one event carries depends on how many were journaled while the
	// stream wrote the last one, and with a card fetch per entry a stream
	// that kept pace with the fetches could send one entry per event.
	go func() {
		defer close(done)
		for i := range n {
			h.srv.Note("a", fmt.Sprintf("burst %d", i))
		}
	}()
	var seq int64
	events := 0
	for seq < n {
		es := decodeEntries(t, nextEvent(t, next))
		events++
		assert.LessOrEqual(t, len(es), 1000)
		for _, e := range es {
			require.Equal(t, seq+1, e.Seq, "entries arrive in order, none missing")
			seq = e.Seq
		}
	}
	<-done
	t.Logf("%d entries in %d events", n, events)
	assert.Less(t, events, n/5, "entries journaled together are sent together")
}

// TestJournalStreamEndsOnClose: closing the server ends an open stream (the
// goroutine leak check of TestMain would fail otherwise).
func TestJournalStreamEndsOnClose(t *testing.T) {
	s, err := server.New(server.Config{Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	require.NoError(t, err)
	require.NoError(t, s.Start("127.0.0.1:0"))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(s.URL() + "/_a2amock/journal/stream")
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 64)
	_, err = resp.Body.Read(buf) // the opening comment
	require.NoError(t, err)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(4 * time.Second):
		t.Fatal("Close waited for the open journal stream")
	}
}

func TestUIPageAndStreamFollowTheControlRules(t *testing.T) {
	h := start(t, server.Config{Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	st, hdr, body := h.do(http.MethodGet, "/_a2amock/ui", nil, nil)
	require.Equal(t, http.StatusOK, st)
	assert.True(t, strings.HasPrefix(hdr.Get("Content-Type"), "text/html"))
	assert.Contains(t, hdr.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Contains(t, string(body), `"mode":"live"`)
	assert.Contains(t, string(body), "/_a2amock/journal/stream")
	assert.Less(t, len(body), 300_000, "page weight budget")

	// Not from loopback: refused, page and stream alike.
	for _, p := range []string{"/_a2amock/ui", "/_a2amock/journal/stream"} {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.RemoteAddr = "192.0.2.7:4444"
		rec := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(rec, req)
		assert.Equal(t, http.StatusForbidden, rec.Code, p)
	}

	// With a token: the stream wants it, the data-free page does not.
	ht := start(t, server.Config{Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}, ControlToken: "s3cret"})
	st, _, _ = ht.do(http.MethodGet, "/_a2amock/journal/stream", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, st)
	st, _, body = ht.do(http.MethodGet, "/_a2amock/ui", nil, nil)
	assert.Equal(t, http.StatusOK, st)
	assert.NotContains(t, string(body), "s3cret")
	next, _ := journalStream(t, ht, "", map[string]string{"Authorization": "Bearer s3cret"})
	ht.do(http.MethodGet, "/agents/a/.well-known/agent-card.json", nil, nil)
	decodeEntries(t, nextEvent(t, next))
}
