package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// stateFramer frames each event as its task state only.
type stateFramer struct{}

func (stateFramer) Event(ev wire.Event) ([]byte, error) { return json.Marshal(string(ev.State())) }
func (stateFramer) ErrorFrame(e *wire.Error) []byte     { return []byte(`"error"`) }
func (stateFramer) Refuse(w http.ResponseWriter, e *wire.Error) error {
	w.WriteHeader(http.StatusBadRequest)
	return nil
}
func (stateFramer) RPCID() json.RawMessage                          { return nil }
func (stateFramer) Open(w http.ResponseWriter) binding.StreamWriter { return sse.NewWriter(w) }

// TestHonestStreamIsJournaledAsWritten streams a new task of an honest
// agent with no step delay: the client reads submitted (the opening task),
// working, the artifact (no state) and completed; the journal has one stream-event entry per
// event written, the stream's response, and a close entry saying it
// completed.
func TestHonestStreamIsJournaledAsWritten(t *testing.T) {
	t.Parallel()
	st, j, req, x := newTestStream(t)
	var mu sync.Mutex
	var responses []string
	st.Respond = func(res *wire.Result, e *wire.Error) {
		mu.Lock()
		defer mu.Unlock()
		responses = append(responses, res.Task.ID)
	}
	rec := httptest.NewRecorder()
	require.NoError(t, st.Serve(rec, httptest.NewRequest(http.MethodPost, "/", nil), req, x, 1, stateFramer{}, nil, nil))

	var got []string
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, data)
		}
	}
	assert.Equal(t, []string{`"submitted"`, `"working"`, `""`, `"completed"`}, got)
	mu.Lock()
	assert.Len(t, responses, 1, "the stream's start is its response")
	mu.Unlock()
	events := j.Filter(0, "a", "", journal.EntryStreamEvent)
	require.Len(t, events, 4)
	assert.Contains(t, events[2].Detail, "artifact")
	assert.Equal(t, wire.StateCompleted, events[3].State)
	closes := j.Filter(0, "a", "", journal.EntryStreamClose)
	require.Len(t, closes, 1)
	assert.Equal(t, "complete: "+string(wire.StateCompleted), closes[0].Detail)
}

// newTestStream is a Stream of an honest agent "a" (no step delay, no
// keep-alive before the test ends) journaling in j, with a
// SendStreamingMessage request and its exchange, ended with the test; edit
// changes the engine's configuration first (a scripted timeline, say).
func newTestStream(t *testing.T, edit ...func(*engine.Config)) (*Stream, *journal.Journal, *wire.Request, *behaviors.Exchange) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var players sync.WaitGroup
	t.Cleanup(players.Wait)
	t.Cleanup(cancel)
	clock := timeline.NewFakeClock(time.Unix(0, 0))
	cfg := engine.Config{Name: "a", Card: cards.Generate("a", 1), Seed: 1, Clock: clock,
		Context: ctx, HostContext: ctx, Players: &players}
	for _, f := range edit {
		f(&cfg)
	}
	eng, err := engine.New(cfg)
	require.NoError(t, err)
	j := journal.New(1000)
	st := &Stream{Agent: eng, AgentName: "a", Clock: clock, KeepAlive: time.Hour, ServerCtx: ctx, AgentCtx: ctx,
		Record: j.Add, Amender: j, Respond: func(*wire.Result, *wire.Error) {}}
	req := &wire.Request{Op: wire.OpStream, Method: "SendStreamingMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC,
		Message: &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{{Text: "hi"}}}}
	x := &behaviors.Exchange{Agent: "a", Op: wire.OpStream, Request: req, Clock: clock}
	return st, j, req, x
}

// flushCheck is a response writer that calls seen before every flush
// goes through: where written bytes can first reach the client.
type flushCheck struct {
	*httptest.ResponseRecorder
	seen func(body string)
}

func (f *flushCheck) Flush() {
	f.seen(f.Body.String())
	f.ResponseRecorder.Flush()
}

// endWriter is a behavior whose only hook is itself, at the stream's end.
type endWriter func(raw behaviors.RawStream) bool

func (f endWriter) Apply(x *behaviors.Exchange) { x.OnStreamEnd(f) }
func (endWriter) String() string                { return "end-writer" }

// TestHeldStreamJournalsEndHookBytesFirst: bytes a stream-end hook writes
// with core.WriteLast on a stream it holds open are journaled before they
// are flushed, not when the client finally leaves: a client that exits
// on them finds them in the journal. The hook writes an event of its own
// (for another task) after the stream's completed event.
func TestHeldStreamJournalsEndHookBytesFirst(t *testing.T) {
	t.Parallel()
	st, j, req, x := newTestStream(t)
	extra := wire.Event{Status: &wire.StatusUpdate{TaskID: "other", Status: wire.TaskStatus{State: wire.StateWorking}}}
	// Applied and instrumented as the server does, so that the stream
	// tracks what the hook writes and names its behavior.
	rep := acted.NewSet(nil, []behaviors.Behavior{endWriter(func(raw behaviors.RawStream) bool {
		frame, err := raw.Encode(extra)
		require.NoError(t, err)
		require.NoError(t, core.WriteLast(raw, frame))
		return true
	})}).Apply(x)
	log := acted.Instrument(x, rep.Owners, func([]journal.ActedBehavior) {}, SetEndOwner)
	r, leave := context.WithCancel(context.Background())
	defer leave()
	var journaledFirst, sent bool
	w := &flushCheck{ResponseRecorder: httptest.NewRecorder(), seen: func(body string) {
		if !strings.HasSuffix(body, `"completed"`+"\n\n"+`data: "working"`+"\n\n") {
			return
		}
		sent = true
		for _, e := range j.Filter(0, "a", "other", journal.EntryStreamEvent) {
			journaledFirst = journaledFirst || e.State == wire.StateWorking && slices.Equal(e.Behaviors, []string{"end-writer"})
		}
		leave() // the client leaves on the hook's event
	}}
	require.NoError(t, st.Serve(w, httptest.NewRequest(http.MethodPost, "/", nil).WithContext(r), req, x, 1, stateFramer{}, nil, log))
	require.True(t, sent, "the hook's event was not flushed: %q", w.Body.String())
	assert.True(t, journaledFirst, "the hook's event was flushed before it was journaled")
	closes := j.Filter(0, "a", "", journal.EntryStreamClose)
	require.Len(t, closes, 1)
	assert.Contains(t, closes[0].Detail, "held open")
}

// goneAfterHeaders is a response writer whose flushes fail once the
// headers went out, as when the client has gone.
type goneAfterHeaders struct {
	*httptest.ResponseRecorder
	flushes int
}

func (g *goneAfterHeaders) FlushError() error {
	if g.flushes++; g.flushes > 1 {
		return errors.New("client gone")
	}
	g.ResponseRecorder.Flush()
	return nil
}

// TestFailedFlushJournalsEventWithheld: an event is journaled before its
// flush, so a flush that fails (the client gone) amends its entry into
// the withheld, not-written event it was when the stream flushed before
// it journaled, instead of leaving it journaled as received.
func TestFailedFlushJournalsEventWithheld(t *testing.T) {
	t.Parallel()
	st, j, req, x := newTestStream(t)
	w := &goneAfterHeaders{ResponseRecorder: httptest.NewRecorder()}
	require.NoError(t, st.Serve(w, httptest.NewRequest(http.MethodPost, "/", nil), req, x, 1, stateFramer{}, nil, nil))
	assert.Empty(t, j.Filter(0, "a", "", journal.EntryStreamEvent), "an event whose flush failed is journaled as received")
	withheld := j.Filter(0, "a", "", journal.EntryWithheld)
	require.Len(t, withheld, 1)
	assert.Equal(t, wire.StateSubmitted, withheld[0].State)
	assert.Contains(t, withheld[0].Detail, "not written: sse: flush: client gone")
	closes := j.Filter(0, "a", "", journal.EntryStreamClose)
	require.Len(t, closes, 1)
	assert.Equal(t, "client gone", closes[0].Detail)
}

// passWriter is a behavior whose only hook is itself, on every event.
type passWriter func(ev wire.Event, emit func(wire.Event) error, raw behaviors.RawStream) error

func (f passWriter) Apply(x *behaviors.Exchange) { x.OnStreamEvent(f) }
func (passWriter) String() string                { return "pass-writer" }

// TestRawLastThenPassJournalsBytesFirst: a stream-event hook that writes
// an event of its own with core.WriteLast and then passes the event it
// was given on leaves nothing for the client to read that the journal
// does not hold yet, at any flush. Before, the passed event's write
// flushed the hook's bytes before the delivery journaled them (it did
// when the hook returned): the check at that flush failed in every run.
func TestRawLastThenPassJournalsBytesFirst(t *testing.T) {
	t.Parallel()
	st, j, req, x := newTestStream(t)
	extra := wire.Event{Status: &wire.StatusUpdate{TaskID: "other", Status: wire.TaskStatus{State: wire.StateWorking}}}
	first := true
	rep := acted.NewSet(nil, []behaviors.Behavior{passWriter(func(ev wire.Event, emit func(wire.Event) error, raw behaviors.RawStream) error {
		if first {
			first = false
			frame, err := raw.Encode(extra)
			if err != nil {
				return err
			}
			if err := core.WriteLast(raw, frame); err != nil {
				return err
			}
		}
		return emit(ev)
	})}).Apply(x)
	log := acted.Instrument(x, rep.Owners, func([]journal.ActedBehavior) {}, SetEndOwner)
	var problems []string
	flushes := 0
	w := &flushCheck{ResponseRecorder: httptest.NewRecorder(), seen: func(body string) {
		flushes++
		// stateFramer's frames are whole once their blank line is written.
		readable, written := strings.Count(body, "\n\n"), len(j.Filter(0, "a", "", journal.EntryStreamEvent))
		if readable > written {
			problems = append(problems, fmt.Sprintf("%d events readable, %d journaled as written, at %q", readable, written, body))
		}
	}}
	require.NoError(t, st.Serve(w, httptest.NewRequest(http.MethodPost, "/", nil), req, x, 1, stateFramer{}, rep.Owners.StreamEvent, log))
	require.True(t, strings.HasPrefix(w.Body.String(), `data: "working"`+"\n\n"+`data: "submitted"`+"\n\n"), "the hook's event does not come first: %q", w.Body.String())
	require.Greater(t, flushes, 1, "the check saw no flush after the hook's")
	assert.Empty(t, problems, "bytes were flushed before they were journaled")
	other := j.Filter(0, "a", "other", journal.EntryStreamEvent)
	require.Len(t, other, 1)
	assert.Equal(t, []string{"pass-writer"}, other[0].Behaviors)
}
