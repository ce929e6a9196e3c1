package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
)

// flushWatch is the response writer of one exchange as the server's
// handler sees it, watched where its bytes can first reach the client:
// at every Flush, before it goes through; the handler's return, when
// net/http sends what is still buffered with the answer's end, is the
// caller's to watch. At each, seen gets the body written so far.
type flushWatch struct {
	http.ResponseWriter
	body bytes.Buffer
	seen func(body []byte)
}

func (w *flushWatch) Write(b []byte) (int, error) {
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *flushWatch) Flush() {
	w.seen(w.body.Bytes())
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *flushWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sseDispatched counts the events a conforming SSE reader has dispatched
// from body: data lines closed by a blank line. An unterminated last line
// dispatches nothing yet.
func sseDispatched(body []byte) int {
	s := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(body))
	lines := strings.Split(s, "\n")
	n, data := 0, false
	for _, l := range lines[:len(lines)-1] {
		switch {
		case l == "":
			if data {
				n++
			}
			data = false
		case l == "data" || strings.HasPrefix(l, "data:"):
			data = true
		}
	}
	return n
}

// jsonDispatched counts a body that is one whole JSON value as one event
// read, as a client of an answer that is not really a stream reads it.
func jsonDispatched(body []byte) int {
	if len(bytes.TrimSpace(body)) > 0 && json.Valid(body) {
		return 1
	}
	return 0
}

// TestRawStreamJournaledBeforeSent: the behaviors that write a stream's
// bytes themselves (sse-framing, buffered-burst, content-type's one JSON
// body) leave nothing for the client to read that the journal does not
// hold yet. At every moment bytes of the stream can reach the client
// (each flush, before it goes through, and the handler's return, before
// net/http sends the rest with the answer's end) the journal holds a
// stream-event entry for every event those bytes complete, and at the
// return the stream's end too, and the last event is not readable before
// it: a client that exits as soon as it has read an event (its last,
// typically) leaves the journal holding it and the stream's end. Before,
// they flushed the bytes and the stream journaled them after: the check
// at the first event's flush failed in every run.
func TestRawStreamJournaledBeforeSent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec       string
		dispatched func([]byte) int
	}{
		{"sse-framing", sseDispatched},
		{"sse-framing:variant=split|comments,pieces=4,gap=0s", sseDispatched},
		{"sse-framing:variant=crlf|event-field|retry-field", sseDispatched},
		{"buffered-burst", sseDispatched},
		{"content-type:type=application/json,stream=json", jsonDispatched},
	} {
		t.Run(c.spec, func(t *testing.T) {
			t.Parallel()
			b, err := behaviors.Catalogue().Parse(c.spec)
			require.NoError(t, err)
			s, err := server.New(server.Config{Seed: 5, StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Behaviors: []behaviors.Behavior{b}}}})
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close()) }()
			var mu sync.Mutex
			var problems []string
			// unclosed are the events readable at flushes before the
			// stream's end was journaled.
			var unclosed []int
			// check compares what the client can read of body with the
			// journal at that moment.
			check := func(body []byte, end bool) {
				n, written, closed := c.dispatched(body), 0, false
				for _, e := range s.Journal().Entries() {
					written += boolInt(e.Kind == server.EntryStreamEvent)
					closed = closed || e.Kind == server.EntryStreamClose
				}
				mu.Lock()
				defer mu.Unlock()
				if n > written {
					problems = append(problems, fmt.Sprintf("%d events readable, %d journaled as written, at %q", n, written, body))
				}
				if !closed {
					unclosed = append(unclosed, n)
				}
				if end && !closed {
					problems = append(problems, "the handler returned before the stream's end was journaled")
				}
			}
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fw := &flushWatch{ResponseWriter: w, seen: func(body []byte) { check(body, false) }}
				s.Handler().ServeHTTP(fw, r)
				check(fw.body.Bytes(), true)
			}))
			defer hs.Close()
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/", bytes.NewReader(streamBody()))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			resp, err := hs.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			n := c.dispatched(body)
			if n == 0 {
				t.Fatalf("the client read no event: %q", body)
			}
			mu.Lock()
			defer mu.Unlock()
			// The stream's last event goes out with its end: no flush
			// before the end was journaled made it readable.
			if len(unclosed) > 0 && unclosed[len(unclosed)-1] == n {
				t.Errorf("all %d events were readable before the stream's end was journaled", n)
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
