package server_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
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

// readWatch serves a server's handler with its response writers watched
// (flushWatch) and compares, at every moment bytes of a stream can reach
// the client (each flush, before it goes through, and the handler's
// return, before the answer's end is sent), what a client could have read
// by then with the journal: every event readable is journaled as written,
// and at the return the stream's end too.
type readWatch struct {
	s *server.Server
	// dispatched counts the events a client reads of a body.
	dispatched func([]byte) int
	mu         sync.Mutex
	problems   []string
	// unclosed are the events readable at flushes before the stream's end
	// was journaled; midStream the most of them at one.
	unclosed  []int
	midStream int
}

func (rw *readWatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fw := &flushWatch{ResponseWriter: w, seen: func(body []byte) { rw.check(body, false) }}
	rw.s.Handler().ServeHTTP(fw, r)
	rw.check(fw.body.Bytes(), true)
}

// check compares what the client can read of body with the journal at
// that moment; end is the handler's return.
func (rw *readWatch) check(body []byte, end bool) {
	n, written, closed := rw.dispatched(body), 0, false
	for _, e := range rw.s.Journal().Entries() {
		written += boolInt(e.Kind == server.EntryStreamEvent)
		closed = closed || e.Kind == server.EntryStreamClose
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if n > written {
		rw.problems = append(rw.problems, fmt.Sprintf("%d events readable, %d journaled as written, at %q", n, written, body))
	}
	if !closed {
		rw.unclosed = append(rw.unclosed, n)
		rw.midStream = max(rw.midStream, n)
	}
	if end && !closed {
		rw.problems = append(rw.problems, "the handler returned before the stream's end was journaled")
	}
}

// verify reports what check found, once the client read n events; with
// lastAtEnd the stream's last event must have gone out with its end only
// (no flush before the end was journaled made all n readable).
func (rw *readWatch) verify(t *testing.T, n int, lastAtEnd bool) {
	t.Helper()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if lastAtEnd && len(rw.unclosed) > 0 && rw.unclosed[len(rw.unclosed)-1] == n {
		t.Errorf("all %d events were readable before the stream's end was journaled", n)
	}
	for _, p := range rw.problems {
		t.Error(p)
	}
}

// TestRawStreamJournaledBeforeSent: the behaviors that write a stream's
// bytes themselves (sse-framing, buffered-burst, content-type's one JSON
// body) leave nothing for the client to read that the journal does not
// hold yet (readWatch), and the last event is not readable before the
// stream's end is journaled: a client that exits as soon as it has read
// an event (its last, typically) leaves the journal holding it and the
// stream's end. Before, they flushed the bytes and the stream journaled
// them after: the check at the first event's flush failed in every run.
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
			rw := &readWatch{s: journalFirstServer(t, server.Config{}, c.spec), dispatched: c.dispatched}
			body := postStream(t, rw)
			n := c.dispatched(body)
			if n == 0 {
				t.Fatalf("the client read no event: %q", body)
			}
			rw.verify(t, n, true)
		})
	}
}

// TestStreamEventsJournaledBeforeSent: every event of an SSE stream, the
// ones in its middle too, is journaled before the client can read it,
// whatever the stream behaviors did to the stream (readWatch): a client
// that reads TASK_STATE_WORKING and asks the journal at once finds it
// there. Before, the stream flushed each event and journaled it after:
// the check at the first event's flush failed in every run. An honest
// stream's last event still goes out with the stream's end only.
func TestStreamEventsJournaledBeforeSent(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "stream-duplicate-events:rate=1", "stream-drop-events:rate=0.5",
		"stream-reorder-events:rate=1", "status-for-other-task", "stream-eof-mid-frame:after=2"} {
		t.Run(cmp.Or(spec, "honest"), func(t *testing.T) {
			t.Parallel()
			rw := &readWatch{s: journalFirstServer(t, server.Config{}, spec), dispatched: sseDispatched}
			n := sseDispatched(postStream(t, rw))
			require.Positive(t, rw.midStream, "no event was readable before the stream's end: the check saw no middle")
			rw.verify(t, n, spec == "")
		})
	}
}

// TestGRPCStreamEventsJournaledBeforeSent is TestStreamEventsJournaledBeforeSent
// over gRPC (SendStreamingMessage, served by h2serve): every message is
// journaled before the client can read it, and an honest stream's last
// goes out with the trailers, after the stream's end is journaled.
// Before, the gRPC stream writer flushed each message and the stream
// journaled it after: the check failed in every run.
func TestGRPCStreamEventsJournaledBeforeSent(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "stream-duplicate-events:rate=1", "stream-drop-events:rate=0.5"} {
		t.Run(cmp.Or(spec, "honest"), func(t *testing.T) {
			t.Parallel()
			s := journalFirstServer(t, server.Config{GRPC: true}, spec)
			rw := &readWatch{s: s, dispatched: grpcDispatched}
			hs := httptest.NewUnstartedServer(rw)
			s.ServeGRPCWith(hs.Config)
			hs.Start()
			defer hs.Close()
			conn, err := grpc.NewClient(hs.Listener.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
			require.NoError(t, err)
			defer conn.Close()
			st, err := a2apb.NewA2AServiceClient(conn).SendStreamingMessage(grpcCtx(t), grpcSend("hi"))
			require.NoError(t, err)
			n := 0
			for {
				_, err := st.Recv()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				n++
			}
			require.Positive(t, rw.midStream, "no message was readable before the stream's end: the check saw no middle")
			rw.verify(t, n, spec == "")
		})
	}
}

// journalFirstServer is a server (cfg with one agent, of the test card,
// with the behavior spec, if any, and no step delay) closed with the test.
func journalFirstServer(t *testing.T, cfg server.Config, spec string) *server.Server {
	t.Helper()
	var list []behaviors.Behavior
	if spec != "" {
		b, err := behaviors.Catalogue().Parse(spec)
		require.NoError(t, err)
		list = append(list, b)
	}
	cfg.Seed, cfg.StepDelay = 5, -1
	cfg.Agents = []server.AgentConfig{{Name: "agent", Card: testCard(wire.V10, false), Behaviors: list}}
	s, err := server.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// postStream sends a JSON-RPC SendStreamingMessage through h and returns
// the body the client read.
func postStream(t *testing.T, h http.Handler) []byte {
	t.Helper()
	hs := httptest.NewServer(h)
	defer hs.Close()
	req, err := http.NewRequest(http.MethodPost, hs.URL+"/", bytes.NewReader(streamBody()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return body
}

// grpcDispatched counts the whole gRPC messages of body.
func grpcDispatched(body []byte) int {
	n := 0
	for {
		_, _, rest, ok := a2apb.NextMessage(body)
		if !ok {
			return n
		}
		n, body = n+1, rest
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
