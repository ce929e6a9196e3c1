package streaming

import (
	"context"
	"encoding/json"
	"errors"
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var players sync.WaitGroup
	defer players.Wait()
	defer cancel()
	clock := timeline.NewFakeClock(time.Unix(0, 0))
	eng, err := engine.New(engine.Config{Name: "a", Card: cards.Generate("a", 1), Seed: 1, Clock: clock,
		Context: ctx, HostContext: ctx, Players: &players})
	require.NoError(t, err)

	j := journal.New(100)
	var mu sync.Mutex
	var responses []string
	st := &Stream{Agent: eng, AgentName: "a", Clock: clock, KeepAlive: time.Hour, ServerCtx: ctx, AgentCtx: ctx,
		Record: j.Add,
		Respond: func(res *wire.Result, e *wire.Error) {
			mu.Lock()
			defer mu.Unlock()
			responses = append(responses, res.Task.ID)
		}}
	req := &wire.Request{Op: wire.OpStream, Method: "SendStreamingMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC,
		Message: &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{{Text: "hi"}}}}
	x := &behaviors.Exchange{Agent: "a", Op: wire.OpStream, Request: req, Clock: clock}
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var players sync.WaitGroup
	defer players.Wait()
	defer cancel()
	clock := timeline.NewFakeClock(time.Unix(0, 0))
	eng, err := engine.New(engine.Config{Name: "a", Card: cards.Generate("a", 1), Seed: 1, Clock: clock,
		Context: ctx, HostContext: ctx, Players: &players})
	require.NoError(t, err)
	j := journal.New(100)
	st := &Stream{Agent: eng, AgentName: "a", Clock: clock, KeepAlive: time.Hour, ServerCtx: ctx, AgentCtx: ctx,
		Record: j.Add, Respond: func(*wire.Result, *wire.Error) {}}
	req := &wire.Request{Op: wire.OpStream, Method: "SendStreamingMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC,
		Message: &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{{Text: "hi"}}}}
	x := &behaviors.Exchange{Agent: "a", Op: wire.OpStream, Request: req, Clock: clock}
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var players sync.WaitGroup
	defer players.Wait()
	defer cancel()
	clock := timeline.NewFakeClock(time.Unix(0, 0))
	eng, err := engine.New(engine.Config{Name: "a", Card: cards.Generate("a", 1), Seed: 1, Clock: clock,
		Context: ctx, HostContext: ctx, Players: &players})
	require.NoError(t, err)
	j := journal.New(100)
	st := &Stream{Agent: eng, AgentName: "a", Clock: clock, KeepAlive: time.Hour, ServerCtx: ctx, AgentCtx: ctx,
		Record: j.Add, Amender: j, Respond: func(*wire.Result, *wire.Error) {}}
	req := &wire.Request{Op: wire.OpStream, Method: "SendStreamingMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC,
		Message: &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{{Text: "hi"}}}}
	x := &behaviors.Exchange{Agent: "a", Op: wire.OpStream, Request: req, Clock: clock}
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
